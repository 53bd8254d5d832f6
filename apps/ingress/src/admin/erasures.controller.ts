import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ErasureService, type AdminCall, type ErasureView } from '@wts/application';
import { Access } from '../access/admin-access.config';
import { Caller } from '../access/caller.decorator';
import { orThrow } from '../http/rejection';
import { RequestErasureDto } from './dto/erasure.dto';

/**
 * Erasure on request (role admin): payloads removed with every copy of them in the service's files.
 * The answer comes at once (202, running); the dispatcher does the work, and GET says how far it got.
 */
@Controller('admin/erasures')
export class ErasuresController {
  constructor(private readonly erasures: ErasureService) {}

  @Post()
  @Access('admin', 'erasure.request')
  @HttpCode(202)
  async request(@Body() body: RequestErasureDto, @Caller() call: AdminCall): Promise<ErasureView> {
    return orThrow(
      await this.erasures.request(
        {
          deliveryIds: body.delivery_ids,
          routineId: body.routine_id,
          triggerAccount: body.trigger_account,
          receivedAfter: body.received_after,
          receivedBefore: body.received_before,
          contains: body.contains,
        },
        call,
      ),
    );
  }

  @Get(':id')
  @Access('admin', 'erasure.view')
  async get(@Param('id') id: string): Promise<ErasureView> {
    return orThrow(await this.erasures.get(id));
  }
}
