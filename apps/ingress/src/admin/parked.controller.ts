import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { RunQueries, type ParkedListItem } from '@wts/application';
import { AdminTokenGuard } from './admin-token.guard';
import { ListQueryDto, toPageRequest } from './dto/list-query.dto';
import { listingResponse, type ListingResponse } from './listing.response';

/** Every parked delivery (one that can never become a run), newest first: for operators. */
@Controller('admin/parked')
@UseGuards(AdminTokenGuard)
export class ParkedController {
  constructor(private readonly queries: RunQueries) {}

  @Get()
  list(@Query() query: ListQueryDto): Promise<ListingResponse<'parked', ParkedListItem>> {
    return listingResponse('parked', this.queries.parked(undefined, toPageRequest(query)));
  }
}
