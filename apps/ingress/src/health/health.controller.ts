import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import { EVENT_STORE } from '@wts/platform';
import type { EventStore } from '@wts/event-store';

@Controller()
export class HealthController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  /** Liveness: the process answers. */
  @Get('healthz')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: the event store answers (no 202 is possible without it). */
  @Get('readyz')
  async ready(): Promise<{ status: 'ready' }> {
    try {
      await this.store.ping();
    } catch {
      throw new ServiceUnavailableException('event store unavailable');
    }
    return { status: 'ready' };
  }
}
