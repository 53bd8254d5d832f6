import { Controller, Get, Header, Param } from '@nestjs/common';
import { RunQueries, serializeRunView } from '@wts/application';
import { orThrow } from '../http/rejection';
import { Access } from '../access/admin-access.config';

@Controller('admin/runs')
export class RunsController {
  constructor(private readonly queries: RunQueries) {}

  /** 404 until the dispatcher has created the run. The payload is spliced in verbatim. */
  @Get(':runId')
  @Access('viewer', 'run.view')
  @Header('content-type', 'application/json; charset=utf-8')
  async get(@Param('runId') runId: string): Promise<string> {
    return serializeRunView(orThrow(await this.queries.run(runId)));
  }
}
