import { Body, Controller, Get, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { RoutinesUseCase, RunQueriesUseCase, type DeliveryListItem, type RoutineView, type RunListItem } from '@wts/application';
import { orThrow } from '../http/rejection';
import { AdminTokenGuard } from './admin-token.guard';
import { ListQueryDto } from './dto/list-query.dto';
import { CreateRoutineDto, UpdateRoutineDto, toChanges, toDefinition } from './dto/routine.dto';

const DEFAULT_LIMIT = 100;

@Controller('admin/routines')
@UseGuards(AdminTokenGuard)
export class RoutinesController {
  constructor(
    private readonly routines: RoutinesUseCase,
    private readonly queries: RunQueriesUseCase,
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
  get(@Param('id') id: string): RoutineView {
    return orThrow(this.routines.get(id));
  }

  @Get(':id/webhook/deliveries')
  deliveries(@Param('id') id: string, @Query() query: ListQueryDto): { deliveries: DeliveryListItem[] } {
    return { deliveries: orThrow(this.queries.deliveries(id, query.limit ?? DEFAULT_LIMIT)) };
  }

  @Get(':id/runs')
  runs(@Param('id') id: string, @Query() query: ListQueryDto): { runs: RunListItem[] } {
    return { runs: orThrow(this.queries.runs(id, query.limit ?? DEFAULT_LIMIT)) };
  }
}
