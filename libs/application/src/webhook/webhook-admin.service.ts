import { Streams, type SigningSecretSealed, type VerificationScheme, type WebhookIdAssigned } from '@wts/contracts';
import { asEvent, toAppend } from '../shared/event-envelope';
import {
  decideWebhook,
  idFromBytes,
  initialWebhookState,
  isRejection,
  judgeRoutineSafety,
  matchActiveAccount,
  reject,
  signingSecretBinding,
  webhookDecider,
  type ProviderCredentialInput,
  type Rejection,
  type RoutineState,
  type WebhookCommand,
  type RulesChange,
} from '@wts/domain';
import type { AdminCall } from '../access/admin-call';
import type { SecretSealer } from '../signing/secret.sealer';
import type { UseCaseContext } from '../shared/use-case.context';
import { HELD_DELIVERIES_CAP, kafkaRetentionRefusal, toWebhookView, type WebhookView, type WebhookViewSettings } from './webhook.view';
import type { HoldSpan } from '../configuration/configuration.state';
import { newCredential, type NewCredential, type SigningSecretToSeal } from './webhook-credential.factory';

/**
 * How the webhook's deliveries prove their sender: a signed scheme's secret is pasted or, for
 * Standard Webhooks, may be made; Meta adds its verify token, Discord takes its public key, Graph
 * its clientState (ProviderCredentialInput).
 */
export interface VerificationInput extends ProviderCredentialInput {
  readonly scheme: VerificationScheme;
}

export interface EnableWebhookInput {
  readonly defaultAccount: string;
  readonly accountOverrideAllowed: boolean;
  /** Days its payloads are kept; null or absent: the service's default (PAYLOAD_RETENTION_SECONDS). */
  readonly payloadRetentionDays?: number | null | undefined;
  /** Absent: bearer, the spec's behaviour. */
  readonly verification?: VerificationInput | undefined;
  /** The filter and payload schema (JSON text) to start with; absent: none. */
  readonly rules?: RulesChange;
}

/**
 * The view plus the secret: only the answers to enable and rotate carry it, once. Null when the
 * operator pasted a provider's signing secret: it is never shown again, not even to them.
 */
export type WebhookWithSecret = WebhookView & { readonly secret: string | null };

/**
 * How many of a routine's deliveries accepted in a hold's span of $all have neither a run nor a park
 * yet (the read models), looking at the newest `cap` of them.
 */
export type WaitingDeliveries = (routineId: string, range: HoldSpan, cap: number) => Promise<number>;

/** Enable, rotate, disable: the Config page's Webhook section. */
export class WebhookAdminService {
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly context: UseCaseContext,
    /** The public base URL and PAYLOAD_RETENTION_SECONDS, both of the configuration: what the view shows. */
    private readonly settings: WebhookViewSettings,
    /** Undefined when no encryption key is configured: signed schemes cannot be enabled. */
    private readonly sealer: SecretSealer | undefined,
    /** Counts a hold's waiting deliveries for the view; absent: the view says null. */
    private readonly waiting?: WaitingDeliveries,
  ) {}

  /** The webhook as it is now (changes made through any replica included), its held deliveries counted. */
  async view(routineId: string): Promise<WebhookView | Rejection> {
    await this.context.freshRoutine(routineId);
    const routine = this.context.config.routine(routineId);
    if (!routine) return reject('routine_not_found', `no routine ${routineId}`);
    return this.present(routine);
  }

  /** The webhook as folded in this process (no look at the store, no count: listings). */
  current(routineId: string): WebhookView | Rejection {
    const routine = this.context.config.routine(routineId);
    if (!routine) return reject('routine_not_found', `no routine ${routineId}`);
    return toWebhookView(this.settings, routine, this.context.config.webhookOfRoutine(routineId));
  }

  /** The view as folded here, with the held deliveries still waiting counted in the read models. */
  async present(routine: RoutineState): Promise<WebhookView> {
    const webhook = this.context.config.webhookOfRoutine(routine.routineId);
    const span = webhook ? this.context.config.holdRangeOf(webhook.webhookId) : undefined;
    const heldDeliveries = span && this.waiting ? await countWaiting(this.waiting, routine.routineId, span) : null;
    return toWebhookView(this.settings, routine, webhook, { held_deliveries: heldDeliveries });
  }

  enable(routineId: string, input: EnableWebhookInput, call: AdminCall): Promise<WebhookWithSecret | Rejection> {
    const tooShort = kafkaRetentionRefusal(this.settings, input.payloadRetentionDays);
    if (tooShort) return Promise.resolve(tooShort);
    return this.serialised(routineId, async () => {
      await this.context.freshRoutine(routineId);
      const routine = this.context.config.routine(routineId);
      if (!routine) return reject('routine_not_found', `no routine ${routineId}`);
      const defaultAccount = matchActiveAccount(this.context.config.accounts(), input.defaultAccount);
      if (!defaultAccount || !routine.accountScope.includes(defaultAccount.accountId)) {
        return reject('default_account_invalid', "default_account must be an active account inside the routine's account scope");
      }
      const made = newCredential(input.verification ?? { scheme: 'bearer' }, this.context.random, this.sealer);
      if (isRejection(made)) return made;
      const webhookId = await this.claimWebhookId(routineId, call);
      await this.context.fresh([Streams.webhookSlot(routineId)]);
      const command: WebhookCommand = {
        type: 'EnableWebhook',
        webhookId,
        routineId,
        credential: made.credential,
        defaultAccount,
        accountOverrideAllowed: input.accountOverrideAllowed,
        payloadRetentionDays: input.payloadRetentionDays ?? null,
        ...(input.rules ? { rules: input.rules } : {}),
        safety: judgeRoutineSafety(routine),
        now: this.context.nowIso(),
      };
      return this.decideWithCredential(routine, webhookId, command, made, call);
    });
  }

  /**
   * A new secret: bearer and Standard Webhooks webhooks get one made (shown once); the others take
   * the provider's new credential (the fields their scheme takes, required), never shown again. The
   * scheme stays the webhook's.
   */
  rotate(routineId: string, input: ProviderCredentialInput, call: AdminCall): Promise<WebhookWithSecret | Rejection> {
    return this.serialised(routineId, async () => {
      await this.context.freshRoutine(routineId);
      const found = this.configured(routineId);
      if (isRejection(found)) return found;
      const made = newCredential({ ...input, scheme: found.scheme }, this.context.random, this.sealer, '');
      if (isRejection(made)) return made;
      const command: WebhookCommand = { type: 'RotateSecret', credential: made.credential, now: this.context.nowIso() };
      return this.decideWithCredential(found.routine, found.webhookId, command, made, call);
    });
  }

  /**
   * Decides on the folded state first, so a refused command seals nothing; then seals a signing
   * secret on the webhook's signing_secret stream before the webhook event that names it is
   * appended (the store decides again: it is the authority).
   */
  private async decideWithCredential(
    routine: RoutineState,
    webhookId: string,
    command: WebhookCommand,
    made: NewCredential,
    call: AdminCall,
  ): Promise<WebhookWithSecret | Rejection> {
    const early = decideWebhook(command, this.context.config.webhook(webhookId) ?? initialWebhookState());
    if (isRejection(early)) return early;
    if (made.signing) await this.sealSigningSecret(webhookId, made.signing, call);
    const result = await this.context.run(Streams.webhook(webhookId), webhookDecider, command, call);
    return isRejection(result) ? result : this.withSecret(routine, made.shown);
  }

  private async sealSigningSecret(webhookId: string, signing: SigningSecretToSeal, call: AdminCall): Promise<void> {
    const sealed: SigningSecretSealed = {
      type: 'SigningSecretSealed',
      data: {
        webhookId,
        secretId: signing.secretId,
        sealed: signing.sealer.seal(signing.secret, signingSecretBinding(webhookId, signing.secretId)),
        sealedAt: this.context.nowIso(),
      },
    };
    await this.context.store.append(
      Streams.signingSecret(webhookId),
      toAppend([sealed], this.context.causation(call), () => this.context.random.uuid()),
      'any',
    );
  }

  disable(routineId: string, call: AdminCall): Promise<WebhookView | Rejection> {
    return this.serialised(routineId, () => this.decide(routineId, call, (now) => ({ type: 'DisableWebhook', now })));
  }

  /**
   * One command on a configured webhook: the routine read fresh, the command made from the time and
   * the routine, decided on the webhook's stream; answers the webhook as it is then.
   */
  async decide(
    routineId: string,
    call: AdminCall,
    command: (now: string, routine: RoutineState) => WebhookCommand | Promise<WebhookCommand>,
  ): Promise<WebhookView | Rejection> {
    await this.context.freshRoutine(routineId);
    const found = this.configured(routineId);
    if (isRejection(found)) return found;
    const decided = await command(this.context.nowIso(), found.routine);
    const result = await this.context.run(Streams.webhook(found.webhookId), webhookDecider, decided, call);
    return isRejection(result) ? result : this.present(found.routine);
  }

  /** The routine and its webhook as folded here: refused when either is missing. */
  configured(routineId: string): { routine: RoutineState; webhookId: string; scheme: VerificationScheme } | Rejection {
    const routine = this.context.config.routine(routineId);
    if (!routine) return reject('routine_not_found', `no routine ${routineId}`);
    const webhook = this.context.config.webhookOfRoutine(routineId);
    if (!webhook) return reject('webhook_not_configured', 'the routine has no webhook yet: enable it first');
    return { routine, webhookId: webhook.webhookId, scheme: webhook.scheme };
  }

  /** The routine's one webhook id: read the claim, or make it with "stream must not exist". */
  private async claimWebhookId(routineId: string, call: AdminCall): Promise<string> {
    const stream = Streams.webhookSlot(routineId);
    for (;;) {
      const claimed = await this.context.store.readStream(stream);
      if (claimed.length > 0) return asEvent<WebhookIdAssigned>(claimed[0]).data.webhookId;
      const webhookId = idFromBytes('webhook', this.context.random.bytes(16));
      const assigned: WebhookIdAssigned = { type: 'WebhookIdAssigned', data: { routineId, webhookId, assignedAt: this.context.nowIso() } };
      const result = await this.context.store.append(
        stream,
        toAppend([assigned], this.context.causation(call), () => this.context.random.uuid()),
        'no_stream',
      );
      if (result.kind === 'appended') return webhookId;
    }
  }

  private async withSecret(routine: RoutineState, secret: string | null): Promise<WebhookWithSecret> {
    return { ...(await this.present(routine)), secret };
  }

  /** One admin change per routine at a time in this process (the first enable mints the id). */
  private serialised<T>(routineId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(routineId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(routineId, settled);
    void settled.then(() => {
      if (this.locks.get(routineId) === settled) this.locks.delete(routineId);
    });
    return next;
  }
}

/** The count is a read model's: when that database is out of reach the view still answers, with null. */
async function countWaiting(waiting: WaitingDeliveries, routineId: string, span: HoldSpan): Promise<number | null> {
  try {
    return await waiting(routineId, span, HELD_DELIVERIES_CAP);
  } catch {
    return null;
  }
}
