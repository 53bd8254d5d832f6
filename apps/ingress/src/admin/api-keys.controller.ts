import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post } from '@nestjs/common';
import { ApiKeysService, type AdminCall, type ApiKeyView, type IssuedApiKey } from '@wts/application';
import { Access } from '../access/admin-access.config';
import { Caller } from '../access/caller.decorator';
import { orThrow } from '../http/rejection';
import { IssueApiKeyDto } from './dto/api-key.dto';

/** Scoped API keys for automation (role admin): the key is in the answer to POST only, once. */
@Controller('admin/api-keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Post()
  @Access('admin', 'api_key.issue')
  @Header('cache-control', 'no-store')
  async issue(@Body() body: IssueApiKeyDto, @Caller() call: AdminCall): Promise<IssuedApiKey> {
    return orThrow(await this.keys.issue({ name: body.name, role: body.role, expiresAt: body.expires_at ?? null }, call));
  }

  @Get()
  @Access('admin', 'api_key.list')
  async list(): Promise<{ api_keys: ApiKeyView[] }> {
    return { api_keys: await this.keys.list() };
  }

  /** Refused at once on every replica; revoking a revoked key changes nothing (204 again). */
  @Delete(':id')
  @Access('admin', 'api_key.revoke')
  @HttpCode(204)
  async revoke(@Param('id') id: string, @Caller() call: AdminCall): Promise<void> {
    orThrow(await this.keys.revoke(id, call));
  }
}
