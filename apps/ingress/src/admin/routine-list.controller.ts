import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { ServiceReadModel, WebhookAdminUseCase, type RoutineView, toRoutineView } from '@wts/application';
import { StreamCategories } from '@wts/contracts';
import { isRejection } from '@wts/domain';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import { EVENT_STORE } from '@wts/platform';
import { AdminTokenGuard } from './admin-token.guard';

export type RoutineListItem = RoutineView & {
  readonly webhook_state: 'not_configured' | 'enabled' | 'disabled';
  readonly webhook_blocked: boolean;
};

const PAGE = 1000;

/**
 * `GET /admin/routines`: every routine, newest first, with its webhook's state — the Config
 * page's routine list. The read model keeps routines by id only, so the ids are learned from the
 * `routine-` streams of the store, incrementally (each call reads only what is new).
 */
@Controller('admin/routines')
@UseGuards(AdminTokenGuard)
export class RoutineListController {
  private readonly ids: string[] = [];
  private readonly seen = new Set<string>();
  private after: GlobalPosition | undefined;
  private catchingUp: Promise<void> = Promise.resolve();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly readModel: ServiceReadModel,
    private readonly webhooks: WebhookAdminUseCase,
  ) {}

  @Get()
  async list(): Promise<{ routines: RoutineListItem[] }> {
    await this.catchUp();
    const routines: RoutineListItem[] = [];
    for (const id of [...this.ids].reverse()) {
      const routine = this.readModel.routine(id);
      const webhook = this.webhooks.view(id);
      if (!routine || isRejection(webhook)) continue; // not folded into the read model yet
      routines.push({ ...toRoutineView(routine), webhook_state: webhook.state, webhook_blocked: webhook.blocked });
    }
    return { routines };
  }

  /** One catch-up at a time; a failed one leaves the position where it was. */
  private catchUp(): Promise<void> {
    const next = this.catchingUp.then(() => this.readNew());
    this.catchingUp = next.catch(() => undefined);
    return next;
  }

  private async readNew(): Promise<void> {
    for (;;) {
      const batch = await this.store.readAll({ after: this.after, limit: PAGE, filter: { streamPrefixes: [StreamCategories.routine] } });
      for (const event of batch) {
        const id = event.streamId.slice(StreamCategories.routine.length);
        if (!this.seen.has(id)) {
          this.seen.add(id);
          this.ids.push(id);
        }
        this.after = event.position;
      }
      if (batch.length < PAGE) return;
    }
  }
}
