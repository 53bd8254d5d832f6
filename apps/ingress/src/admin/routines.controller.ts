import { Body, Controller, Get, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import {
  RoutinesService,
  RunQueries,
  type DeliveryListItem,
  type ParkedListItem,
  type RoutineView,
  type RunListItem,
} from '@wts/application';
import { orThrow } from '../http/rejection';
import { AdminTokenGuard } from './admin-token.guard';
import { ListQueryDto, toPageRequest } from './dto/list-query.dto';
import { CreateRoutineDto, UpdateRoutineDto, toChanges, toDefinition } from './dto/routine.dto';
import { listingResponse, type ListingResponse } from './listing.response';

@Controller('admin/routines')
@UseGuards(AdminTokenGuard)
export class RoutinesController {
  constructor(
    private readonly routines: RoutinesService,
    private readonly queries: RunQueries,
  ) {}

  @Post()
  async create(@Body() body: CreateRoutineDto): Promise<RoutineView> {
    return orThrow(await this.routines.create(toDefinition(body)));
  }

  @Patch(':id')
  async update(@Param('id') id: string, @Body() body: UpdateRoutineDto): Promise<RoutineView> {
    return orThrow(await this.routines.update(id, toChanges(body)));
  }

  @Get(':id')
  async get(@Param('id') id: string): Promise<RoutineView> {
    return orThrow(await this.routines.get(id));
  }

  @Get(':id/webhook/deliveries')
  deliveries(@Param('id') id: string, @Query() query: ListQueryDto): Promise<ListingResponse<'deliveries', DeliveryListItem>> {
    return listingResponse('deliveries', this.queries.deliveries(id, toPageRequest(query)));
  }

  @Get(':id/runs')
  runs(@Param('id') id: string, @Query() query: ListQueryDto): Promise<ListingResponse<'runs', RunListItem>> {
    return listingResponse('runs', this.queries.runs(id, toPageRequest(query)));
  }

  /** Deliveries of this routine that can never become a run, kept with their error. */
  @Get(':id/webhook/parked')
  parked(@Param('id') id: string, @Query() query: ListQueryDto): Promise<ListingResponse<'parked', ParkedListItem>> {
    return listingResponse('parked', this.queries.parked(id, toPageRequest(query)));
  }
}
