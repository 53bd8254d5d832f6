import { Controller, Get, Param, Query } from '@nestjs/common';
import { WebhookActivityQueries, type DeliveryReplaysItem, type HourlyActivityItem, type RejectedAttemptItem } from '@wts/application';
import { orThrow } from '../http/rejection';
import { Access } from '../access/admin-access.config';
import { ListQueryDto, toPageRequest } from './dto/list-query.dto';
import { listingResponse, type ListingResponse } from './listing.dto';

/**
 * For the owner only (role viewer and up): what callers never learn. Callers get one identical 404 for
 * a wrong secret, a disabled endpoint and an unknown one; the Config page shows which it was.
 * Shared by every replica (the read-model database).
 */
@Controller('admin/routines/:id/webhook')
export class WebhookActivityController {
  constructor(private readonly activity: WebhookActivityQueries) {}

  /** Rejected attempts on this routine's webhook, newest first (the newest 100 are kept per webhook). */
  @Get('attempts')
  @Access('viewer', 'webhook.attempts')
  attempts(@Param('id') id: string, @Query() query: ListQueryDto): Promise<ListingResponse<'attempts', RejectedAttemptItem>> {
    return listingResponse('attempts', this.activity.attempts(id, toPageRequest(query)));
  }

  /** Replay counts for the same deliveries `GET …/webhook/deliveries` lists with the same page. */
  @Get('replays')
  @Access('viewer', 'webhook.replays')
  replays(@Param('id') id: string, @Query() query: ListQueryDto): Promise<ListingResponse<'replays', DeliveryReplaysItem>> {
    return listingResponse('replays', this.activity.replays(id, toPageRequest(query)));
  }

  /** The last 24 hours by hour (accepted, filtered, filter errors, refused by reason): the Config page's chart. */
  @Get('activity/hourly')
  @Access('viewer', 'webhook.activity_hourly')
  async hourly(@Param('id') id: string): Promise<{ readonly hours: readonly HourlyActivityItem[] }> {
    return { hours: orThrow(await this.activity.hourly(id)) };
  }
}
