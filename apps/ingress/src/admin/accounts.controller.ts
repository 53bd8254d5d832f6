import { Body, Controller, Get, Param, Patch, Post } from '@nestjs/common';
import { AccountsService, type AccountView, type AdminCall } from '@wts/application';
import { orThrow } from '../http/rejection';
import { Access } from '../access/admin-access.config';
import { Caller } from '../access/caller.decorator';
import { CreateAccountDto, UpdateAccountDto } from './dto/account.dto';

@Controller('admin/accounts')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  @Access('admin', 'account.connect')
  async connect(@Body() body: CreateAccountDto, @Caller() call: AdminCall): Promise<AccountView> {
    return orThrow(await this.accounts.connect(body, call));
  }

  @Patch(':id')
  @Access('admin', 'account.update')
  async update(@Param('id') id: string, @Body() body: UpdateAccountDto, @Caller() call: AdminCall): Promise<AccountView> {
    return orThrow(await this.accounts.update(id, body, call));
  }

  @Get()
  @Access('viewer', 'account.list')
  async list(): Promise<{ accounts: AccountView[] }> {
    return { accounts: await this.accounts.list() };
  }
}
