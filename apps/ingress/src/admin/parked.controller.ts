import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { RedispatchParkedUseCase, RunQueries, type AdminCall, type RedispatchResult } from '@wts/application';
import type { ParkedRow } from '@wts/read-models';
import { Access } from '../access/admin-access.config';
import { Caller } from '../access/caller.decorator';
import { ListQueryDto, toPageRequest } from './dto/list-query.dto';
import { RedispatchParkedDto } from './dto/redispatch.dto';
import { listingResponse, type ListingResponse } from './listing.dto';

/** Every parked delivery (one that can never become a run), newest first: for operators. */
@Controller('admin/parked')
export class ParkedController {
  constructor(
    private readonly queries: RunQueries,
    private readonly redispatcher: RedispatchParkedUseCase,
  ) {}

  @Get()
  @Access('viewer', 'parked.list')
  list(@Query() query: ListQueryDto): Promise<ListingResponse<'parked', ParkedRow>> {
    return listingResponse('parked', this.queries.parked(undefined, toPageRequest(query)));
  }

  /** Each named parked delivery handed to the dispatcher's use case again, one at a time: the outcome of each. */
  @Post('redispatch')
  @Access('operator', 'parked.redispatch')
  @HttpCode(200)
  async redispatch(@Body() body: RedispatchParkedDto, @Caller() call: AdminCall): Promise<{ results: RedispatchResult[] }> {
    return { results: await this.redispatcher.execute(body.source_event_ids, call) };
  }
}
