import { type DynamicModule, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health/health.controller';
import { READINESS_CHECKS, type ReadinessCheck } from './health/readiness.probe';
import { MetricsController } from './metrics.controller';

/** Health (live, ready) and metrics, the same on both services. */
@Module({})
export class OperationsModule {
  static forRoot(checks: readonly ReadinessCheck[]): DynamicModule {
    return {
      module: OperationsModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [HealthController, MetricsController],
      providers: [{ provide: READINESS_CHECKS, useValue: checks }],
    };
  }
}
