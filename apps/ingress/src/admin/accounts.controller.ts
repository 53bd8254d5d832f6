import { Body, Controller, Get, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { AccountsService, type AccountView } from '@wts/application';
import { orThrow } from '../http/rejection';
import { AdminTokenGuard } from './admin-token.guard';
import { CreateAccountDto, UpdateAccountDto } from './dto/account.dto';

@Controller('admin/accounts')
@UseGuards(AdminTokenGuard)
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Post()
  async connect(@Body() body: CreateAccountDto): Promise<AccountView> {
    return orThrow(await this.accounts.connect(body));
  }

  @Patch(':id')
  async update(@Param('id') id: string, @Body() body: UpdateAccountDto): Promise<AccountView> {
    return orThrow(await this.accounts.update(id, body));
  }

  @Get()
  async list(): Promise<{ accounts: AccountView[] }> {
    return { accounts: await this.accounts.list() };
  }
}
