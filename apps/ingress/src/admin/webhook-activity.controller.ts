import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { RunQueriesUseCase, WebhookActivityLog, WebhookAdminUseCase, type AttemptReason } from '@wts/application';
import { orThrow } from '../http/rejection';
import { AdminTokenGuard } from './admin-token.guard';
import { ListQueryDto } from './dto/list-query.dto';

export interface RejectedAttemptView {
  readonly reason: AttemptReason;
  readonly at: string;
  readonly source_address: string;
}

export interface DeliveryReplaysView {
  readonly delivery_id: string;
  /** Idempotent repeats this ingress process answered with the original 202 (in memory). */
  readonly replays: number;
}

const DEFAULT_LIMIT = 100;

/**
 * For the owner only (admin token): what callers never learn. Callers get one identical 404 for
 * a wrong secret, a disabled endpoint and an unknown one; the Config page shows which it was.
 * Both answers come from the in-memory, bounded WebhookActivityLog of this ingress process.
 */
@Controller('admin/routines/:id/webhook')
@UseGuards(AdminTokenGuard)
export class WebhookActivityController {
  constructor(
    private readonly webhooks: WebhookAdminUseCase,
    private readonly queries: RunQueriesUseCase,
    private readonly activity: WebhookActivityLog,
  ) {}

  /** Recent rejected attempts on this routine's webhook, newest first (at most 100 kept per webhook). */
  @Get('attempts')
  attempts(@Param('id') id: string): { attempts: RejectedAttemptView[] } {
    const view = orThrow(this.webhooks.view(id));
    if (view.webhook_id === null) return { attempts: [] };
    return {
      attempts: this.activity.recent(view.webhook_id).map((attempt) => ({
        reason: attempt.reason,
        at: attempt.at,
        source_address: attempt.sourceAddress,
      })),
    };
  }

  /** Replay counts for the same deliveries `GET …/webhook/deliveries?limit=` lists, same order. */
  @Get('replays')
  replays(@Param('id') id: string, @Query() query: ListQueryDto): { replays: DeliveryReplaysView[] } {
    const deliveries = orThrow(this.queries.deliveries(id, query.limit ?? DEFAULT_LIMIT));
    return {
      replays: deliveries.map((delivery) => ({ delivery_id: delivery.delivery_id, replays: this.activity.replaysOf(delivery.delivery_id) })),
    };
  }
}
