import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { RunQueries, type ParkedListItem } from '@wts/application';
import { orThrow } from '../http/rejection';
import { AdminTokenGuard } from './admin-token.guard';
import { ListQueryDto, toPageRequest } from './dto/list-query.dto';

/** Every parked delivery (one that can never become a run), newest first: for operators. */
@Controller('admin/parked')
@UseGuards(AdminTokenGuard)
export class ParkedController {
  constructor(private readonly queries: RunQueries) {}

  @Get()
  async list(@Query() query: ListQueryDto): Promise<{ parked: readonly ParkedListItem[]; next_cursor: string | null }> {
    const page = orThrow(await this.queries.parked(undefined, toPageRequest(query)));
    return { parked: page.items, next_cursor: page.nextCursor };
  }
}
