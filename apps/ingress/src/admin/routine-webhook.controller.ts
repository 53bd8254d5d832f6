import { Body, Controller, Get, Header, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { WebhookAdminService, type WebhookView, type WebhookWithSecret } from '@wts/application';
import { orThrow } from '../http/rejection';
import { AdminTokenGuard } from './admin-token.guard';
import { EnableWebhookDto } from './dto/webhook.dto';

/** The answers that carry the secret: no cache (browser, proxy) may keep a copy. */
const NO_STORE = 'no-store';

/** The Webhook section of a routine's Config page. The secret appears only in enable/rotate. */
@Controller('admin/routines/:id/webhook')
@UseGuards(AdminTokenGuard)
export class RoutineWebhookController {
  constructor(private readonly webhooks: WebhookAdminService) {}

  @Get()
  async view(@Param('id') id: string): Promise<WebhookView> {
    return orThrow(await this.webhooks.view(id));
  }

  @Post('enable')
  @HttpCode(200)
  @Header('cache-control', NO_STORE)
  async enable(@Param('id') id: string, @Body() body: EnableWebhookDto): Promise<WebhookWithSecret> {
    return orThrow(
      await this.webhooks.enable(id, { defaultAccount: body.default_account, accountOverrideAllowed: body.account_override_allowed }),
    );
  }

  @Post('rotate')
  @HttpCode(200)
  @Header('cache-control', NO_STORE)
  async rotate(@Param('id') id: string): Promise<WebhookWithSecret> {
    return orThrow(await this.webhooks.rotate(id));
  }

  @Post('disable')
  @HttpCode(200)
  async disable(@Param('id') id: string): Promise<WebhookView> {
    return orThrow(await this.webhooks.disable(id));
  }
}
