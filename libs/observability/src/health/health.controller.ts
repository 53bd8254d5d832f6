import { Controller, Get, Inject, type OnApplicationShutdown, Res, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, type HealthCheckResult, type HealthIndicatorResult } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { READINESS_CHECKS, type ReadinessCheck } from './readiness.probe';
import { sharedReadinessCheck } from './shared-readiness.probe';

/**
 * Liveness and readiness (Terminus). Live: the process answers; it checks nothing else, so a
 * dependency outage never gets a healthy process restarted. Ready: every configured dependency
 * answers; the body lists each check (`info`/`error`/`details`), 503 when one is down.
 * /healthz and /readyz are the same answers under their older names. Each dependency is checked at
 * most once a second however many probes arrive (sharedReadinessCheck).
 */
@Controller()
export class HealthController implements OnApplicationShutdown {
  private readonly checks: readonly ReadinessCheck[];

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(READINESS_CHECKS) checks: readonly ReadinessCheck[],
  ) {
    this.checks = checks.map((check) => sharedReadinessCheck(check));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.checks.map((check) => check.close?.().catch(() => undefined)));
  }

  @Get(['health/live', 'healthz'])
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get(['health/ready', 'readyz'])
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthCheckResult> {
    try {
      return await this.health.check(this.checks.map((dependency) => () => this.probe(dependency)));
    } catch (error) {
      // Terminus throws the per-check body as a 503: answered as it is, not as a problem.
      if (!(error instanceof ServiceUnavailableException)) throw error;
      void reply.status(503).header('retry-after', '5');
      return error.getResponse() as HealthCheckResult;
    }
  }

  private async probe(dependency: ReadinessCheck): Promise<HealthIndicatorResult> {
    const session = this.indicators.check(dependency.name);
    try {
      await dependency.check();
      return session.up();
    } catch (error) {
      return session.down({ message: error instanceof Error ? error.message : String(error) });
    }
  }
}
