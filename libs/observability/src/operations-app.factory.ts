import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ReadinessCheck } from './health/readiness.probe';
import { OperationsModule } from './operations.module';

/**
 * Health and metrics on a listener of their own (the ingress's OPS_PORT): the same controllers and
 * the same process-wide metrics registry as when they are served beside the API, so a scraper or an
 * orchestrator sees the same answers — just not on the port the public edge exposes.
 */
export async function createOperationsApp(checks: readonly ReadinessCheck[]): Promise<NestFastifyApplication> {
  const app = await NestFactory.create<NestFastifyApplication>(
    OperationsModule.forRoot(checks),
    new FastifyAdapter({ return503OnClosing: true }),
    {
      logger: false,
      abortOnError: false,
    },
  );
  await app.init();
  return app;
}
