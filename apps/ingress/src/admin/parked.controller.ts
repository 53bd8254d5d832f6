import { Controller, Get, Query } from '@nestjs/common';
import { RunQueries, type ParkedListItem } from '@wts/application';
import { Access } from '../access/admin-access.config';
import { ListQueryDto, toPageRequest } from './dto/list-query.dto';
import { listingResponse, type ListingResponse } from './listing.response';

/** Every parked delivery (one that can never become a run), newest first: for operators. */
@Controller('admin/parked')
export class ParkedController {
  constructor(private readonly queries: RunQueries) {}

  @Get()
  @Access('viewer', 'parked.list')
  list(@Query() query: ListQueryDto): Promise<ListingResponse<'parked', ParkedListItem>> {
    return listingResponse('parked', this.queries.parked(undefined, toPageRequest(query)));
  }
}
