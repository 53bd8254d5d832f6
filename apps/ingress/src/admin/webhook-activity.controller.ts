import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { WebhookActivityQueries, type DeliveryReplaysItem, type RejectedAttemptItem } from '@wts/application';
import { orThrow } from '../http/rejection';
import { AdminTokenGuard } from './admin-token.guard';
import { ListQueryDto, toPageRequest } from './dto/list-query.dto';

/**
 * For the owner only (admin token): what callers never learn. Callers get one identical 404 for
 * a wrong secret, a disabled endpoint and an unknown one; the Config page shows which it was.
 * Shared by every replica (the read-model database).
 */
@Controller('admin/routines/:id/webhook')
@UseGuards(AdminTokenGuard)
export class WebhookActivityController {
  constructor(private readonly activity: WebhookActivityQueries) {}

  /** Rejected attempts on this routine's webhook, newest first (the newest 100 are kept per webhook). */
  @Get('attempts')
  async attempts(
    @Param('id') id: string,
    @Query() query: ListQueryDto,
  ): Promise<{ attempts: readonly RejectedAttemptItem[]; next_cursor: string | null }> {
    const page = orThrow(await this.activity.attempts(id, toPageRequest(query)));
    return { attempts: page.items, next_cursor: page.nextCursor };
  }

  /** Replay counts for the same deliveries `GET …/webhook/deliveries` lists with the same page. */
  @Get('replays')
  async replays(
    @Param('id') id: string,
    @Query() query: ListQueryDto,
  ): Promise<{ replays: readonly DeliveryReplaysItem[]; next_cursor: string | null }> {
    const page = orThrow(await this.activity.replays(id, toPageRequest(query)));
    return { replays: page.items, next_cursor: page.nextCursor };
  }
}
