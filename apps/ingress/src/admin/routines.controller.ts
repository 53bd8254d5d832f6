import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { RoutinesService, RunQueries, type AdminCall, type DeliveryListItem, type RoutineView } from '@wts/application';
import type { ParkedRow, RunRow } from '@wts/read-models';
import { orThrow } from '../http/rejection';
import { Access } from '../access/admin-access.config';
import { Caller } from '../access/caller.decorator';
import { ListQueryDto, toPageRequest } from './dto/list-query.dto';
import { CreateRoutineDto, UpdateRoutineDto, toChanges, toDefinition } from './dto/routine.dto';
import { listingResponse, type ListingResponse } from './listing.dto';

@Controller('admin/routines')
export class RoutinesController {
  constructor(
    private readonly routines: RoutinesService,
    private readonly queries: RunQueries,
  ) {}

  @Post()
  @Access('admin', 'routine.create')
  async create(@Body() body: CreateRoutineDto, @Caller() call: AdminCall): Promise<RoutineView> {
    return orThrow(await this.routines.create(toDefinition(body), call));
  }

  @Patch(':id')
  @Access('admin', 'routine.update')
  async update(@Param('id') id: string, @Body() body: UpdateRoutineDto, @Caller() call: AdminCall): Promise<RoutineView> {
    return orThrow(await this.routines.update(id, toChanges(body), call));
  }

  @Get(':id')
  @Access('viewer', 'routine.view')
  async get(@Param('id') id: string): Promise<RoutineView> {
    return orThrow(await this.routines.get(id));
  }

  @Get(':id/webhook/deliveries')
  @Access('viewer', 'webhook.deliveries')
  deliveries(@Param('id') id: string, @Query() query: ListQueryDto): Promise<ListingResponse<'deliveries', DeliveryListItem>> {
    return listingResponse('deliveries', this.queries.deliveries(id, toPageRequest(query)));
  }

  @Get(':id/runs')
  @Access('viewer', 'run.list')
  runs(@Param('id') id: string, @Query() query: ListQueryDto): Promise<ListingResponse<'runs', RunRow>> {
    return listingResponse('runs', this.queries.runs(id, toPageRequest(query)));
  }

  /** Deliveries of this routine that can never become a run, kept with their error. */
  @Get(':id/webhook/parked')
  @Access('viewer', 'parked.list')
  parked(@Param('id') id: string, @Query() query: ListQueryDto): Promise<ListingResponse<'parked', ParkedRow>> {
    return listingResponse('parked', this.queries.parked(id, toPageRequest(query)));
  }
}
