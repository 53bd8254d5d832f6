import { Body, Controller, Get, Header, HttpCode, Param, Patch, Post } from '@nestjs/common';
import {
  WebhookAdminService,
  WebhookHoldService,
  WebhookRetentionService,
  WebhookRulesService,
  type AdminCall,
  type RulesTrial,
  type WebhookView,
  type WebhookWithSecret,
} from '@wts/application';
import { RejectionError, type ProviderCredentialInput, type RulesChange } from '@wts/domain';
import { schemaText, TryRulesDto, type RoutineRulesFieldsDto } from './dto/routine-rules.dto';
import { orThrow } from '../http/rejection';
import { Access } from '../access/admin-access.config';
import { Caller } from '../access/caller.decorator';
import {
  ChangeWebhookDto,
  EnableWebhookDto,
  HoldWebhookDto,
  ReleaseWebhookDto,
  RotateWebhookDto,
  type CredentialFieldsDto,
} from './dto/webhook.dto';

/** The answers that carry the secret: no cache (browser, proxy) may keep a copy. */
const NO_STORE = 'no-store';

/** The Webhook section of a routine's Config page. The secret appears only in enable/rotate. */
@Controller('admin/routines/:id/webhook')
export class RoutineWebhookController {
  constructor(
    private readonly webhooks: WebhookAdminService,
    private readonly holds: WebhookHoldService,
    private readonly retention: WebhookRetentionService,
    private readonly rules: WebhookRulesService,
  ) {}

  @Get()
  @Access('viewer', 'webhook.view')
  async view(@Param('id') id: string): Promise<WebhookView> {
    return orThrow(await this.webhooks.view(id));
  }

  /**
   * The webhook's settings that change without a new secret: today its payload retention, which
   * applies to deliveries accepted from now on (stored payloads keep the expiry they were given).
   */
  @Patch()
  @Access('operator', 'webhook.retention')
  async change(@Param('id') id: string, @Body() body: ChangeWebhookDto, @Caller() call: AdminCall): Promise<WebhookView> {
    const rules = rulesOf(body);
    // Every setting is checked before any is written: an invalid filter changes no retention.
    const invalid = await this.rules.check(rules);
    if (invalid) throw new RejectionError(invalid);
    let view: WebhookView | undefined;
    if (body.payload_retention_days !== undefined) view = orThrow(await this.retention.change(id, body.payload_retention_days, call));
    if (rules.filter !== undefined || rules.payloadSchema !== undefined) view = orThrow(await this.rules.change(id, rules, call));
    return view ?? orThrow(await this.webhooks.view(id));
  }

  /** Tries a filter and a schema (given, or the webhook's own) on a sample; nothing is saved or recorded. */
  @Post('rules/try')
  @Access('operator', 'webhook.rules_try')
  @HttpCode(200)
  async tryRules(@Param('id') id: string, @Body() body: TryRulesDto): Promise<RulesTrial> {
    const sample = { body: body.sample, contentType: body.content_type, eventType: body.event_type, headers: body.headers };
    return orThrow(await this.rules.tryRules(id, rulesOf(body), sample));
  }

  @Post('enable')
  @Access('operator', 'webhook.enable')
  @HttpCode(200)
  @Header('cache-control', NO_STORE)
  async enable(@Param('id') id: string, @Body() body: EnableWebhookDto, @Caller() call: AdminCall): Promise<WebhookWithSecret> {
    const rules = rulesOf(body);
    const invalid = await this.rules.check(rules);
    if (invalid) throw new RejectionError(invalid);
    const input = {
      defaultAccount: body.default_account,
      accountOverrideAllowed: body.account_override_allowed,
      payloadRetentionDays: body.payload_retention_days ?? null,
      verification: body.verification && { scheme: body.verification.scheme, ...credentialFields(body.verification) },
      rules,
    };
    return orThrow(await this.webhooks.enable(id, input, call));
  }

  @Post('rotate')
  @Access('operator', 'webhook.rotate')
  @HttpCode(200)
  @Header('cache-control', NO_STORE)
  async rotate(@Param('id') id: string, @Body() body: RotateWebhookDto, @Caller() call: AdminCall): Promise<WebhookWithSecret> {
    return orThrow(await this.webhooks.rotate(id, credentialFields(body), call));
  }

  @Post('disable')
  @Access('operator', 'webhook.disable')
  @HttpCode(200)
  async disable(@Param('id') id: string, @Caller() call: AdminCall): Promise<WebhookView> {
    return orThrow(await this.webhooks.disable(id, call));
  }

  /** Runs paused: deliveries are still accepted (202) and kept; no run until release. */
  @Post('hold')
  @Access('operator', 'webhook.hold')
  @HttpCode(200)
  async hold(@Param('id') id: string, @Body() body: HoldWebhookDto, @Caller() call: AdminCall): Promise<WebhookView> {
    const releaseAt = body.release_at === undefined ? null : new Date(body.release_at).toISOString();
    return orThrow(await this.holds.hold(id, { releaseAt }, call));
  }

  /**
   * Each held delivery is judged as things stand now and gets its run, in acceptance order (or is
   * parked with the reason the routine now refuses it); later deliveries run at once. `discard`:
   * each is parked `discarded_by_operator` instead, no run.
   */
  @Post('release')
  @Access('operator', 'webhook.release')
  @HttpCode(200)
  async release(@Param('id') id: string, @Body() body: ReleaseWebhookDto, @Caller() call: AdminCall): Promise<WebhookView> {
    const discard = body.discard === true;
    return orThrow(await this.holds.release(id, { discard, ...(discard && body.held_since ? { heldSince: body.held_since } : {}) }, call));
  }
}

/** A verification's credential fields as the service names them (absent ones left out). */
function credentialFields(body: CredentialFieldsDto): ProviderCredentialInput {
  return { secret: body.secret, verifyToken: body.verify_token, publicKey: body.public_key, clientState: body.client_state };
}

/** The rules' members of a body as the service takes them (absent: unchanged; a schema as its JSON text). */
function rulesOf(body: RoutineRulesFieldsDto): RulesChange {
  const payloadSchema = schemaText(body.payload_schema);
  return { ...(body.filter !== undefined ? { filter: body.filter } : {}), ...(payloadSchema !== undefined ? { payloadSchema } : {}) };
}
