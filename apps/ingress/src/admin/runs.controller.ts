import { Controller, Get, Header, Param, UseGuards } from '@nestjs/common';
import { RunQueries, serializeRunView } from '@wts/application';
import { orThrow } from '../http/rejection';
import { AdminTokenGuard } from './admin-token.guard';

@Controller('admin/runs')
@UseGuards(AdminTokenGuard)
export class RunsController {
  constructor(private readonly queries: RunQueries) {}

  /** 404 until the dispatcher has created the run. The payload is spliced in verbatim. */
  @Get(':runId')
  @Header('content-type', 'application/json; charset=utf-8')
  async get(@Param('runId') runId: string): Promise<string> {
    return serializeRunView(orThrow(await this.queries.run(runId)));
  }
}
