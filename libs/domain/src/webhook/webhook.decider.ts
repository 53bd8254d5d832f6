import type { SignedScheme, SignedVerification, TriggerAccount, VerificationScheme, WebhookEvent } from '@wts/contracts';
import { assertNever } from '@wts/contracts';
import type { SafetyVerdict } from '../safety/safety.policy';
import { PAYLOAD_RETENTION_DAYS } from '../delivery/payload-retention.policy';
import { accept, reject, type Decider, type Decision } from '../shared/decision';
import { decideHold, decideRelease } from './webhook-hold.decider';
import { decideRulesChange, rulesEvents, rulesProblem, type RulesChange } from './webhook-rules.decider';

export interface ConfiguredWebhook {
  readonly status: 'enabled' | 'disabled';
  readonly webhookId: string;
  readonly routineId: string;
  /** How deliveries authenticate: the spec's bearer secret, or a provider's signature. */
  readonly scheme: VerificationScheme;
  /** Bearer: the SHA-256 (hex) of the secret. Null for a signed webhook. */
  readonly secretDigest: string | null;
  /** Signed: the id of the current sealed signing secret. Null for a bearer webhook. */
  readonly signingSecretId: string | null;
  readonly defaultAccount: TriggerAccount;
  readonly accountOverrideAllowed: boolean;
  /** How many days its deliveries' payloads are kept; null: the service's default (PAYLOAD_RETENTION_SECONDS). */
  readonly payloadRetentionDays: number | null;
  readonly blocked: boolean;
  readonly blockedReason: string | null;
  /** Runs paused (deliveries still accepted): since when, by whom, until when at most. Null: not held. */
  readonly hold: WebhookHold | null;
  /**
   * How the latest hold ended: 'run' (its deliveries run, in the order they arrived) or 'discard'
   * (each parked, no run). Absent: never released. A new hold keeps it until its own release.
   */
  readonly lastRelease?: WebhookReleaseKind;
  /** The routine rules: a CEL filter and a JSON Schema (as saved), null when none. */
  readonly filter: string | null;
  readonly payloadSchema: string | null;
}

export interface WebhookHold {
  /** When the hold began (a later hold changing only the expiry keeps it). */
  readonly since: string;
  /** The actor's display name. */
  readonly by: string;
  /** When the service releases the hold by itself; null: only an operator does. */
  readonly releaseAt: string | null;
}

/** What a release does with the deliveries its hold kept. */
export type WebhookReleaseKind = 'run' | 'discard';

export type WebhookState = { readonly status: 'not_configured' } | ConfiguredWebhook;

/** What a delivery must present: the digest of a bearer secret, or the id of a sealed signing secret. */
export type WebhookCredential =
  { readonly scheme: 'bearer'; readonly secretDigest: string } | { readonly scheme: SignedScheme; readonly secretId: string };

export type WebhookCommand =
  | {
      readonly type: 'EnableWebhook';
      readonly webhookId: string;
      readonly routineId: string;
      readonly credential: WebhookCredential;
      readonly defaultAccount: TriggerAccount;
      readonly accountOverrideAllowed: boolean;
      readonly payloadRetentionDays?: number | null;
      /** The filter and payload schema to start with (absent: none). */
      readonly rules?: RulesChange;
      readonly safety: SafetyVerdict;
      readonly now: string;
    }
  /** Absent members unchanged, null removes. */
  | { readonly type: 'ChangeRules'; readonly rules: RulesChange; readonly now: string }
  | { readonly type: 'RotateSecret'; readonly credential: WebhookCredential; readonly now: string }
  | { readonly type: 'DisableWebhook'; readonly now: string }
  | { readonly type: 'ReassessSafety'; readonly safety: SafetyVerdict; readonly now: string }
  /** null: back to the service's default. Applies to deliveries accepted from then on. */
  | { readonly type: 'ChangeRetention'; readonly payloadRetentionDays: number | null; readonly now: string }
  | { readonly type: 'HoldWebhook'; readonly heldBy: string; readonly releaseAt: string | null; readonly now: string }
  /**
   * `expired`: the service releasing a hold whose releaseAt has passed (a no-op unless it has).
   * `discard`: an operator discarding what the hold kept (parked, no run); never an expiry.
   * `heldDeliveries`: how many were waiting, as the operator was shown (recorded for the audit trail).
   */
  | {
      readonly type: 'ReleaseWebhook';
      readonly releasedBy: string;
      readonly expired: boolean;
      readonly discard?: boolean;
      readonly heldDeliveries?: number | null;
      /** A discard's precondition: the hold the operator looked at (its `since`); another hold, or none, refuses it. */
      readonly heldSince?: string;
      readonly now: string;
    };

export const initialWebhookState = (): WebhookState => ({ status: 'not_configured' });

function safetyEvents(webhookId: string, wasBlocked: boolean, safety: SafetyVerdict, now: string): WebhookEvent[] {
  if (safety.blocked && !wasBlocked) {
    return [{ type: 'WebhookBlocked', data: { webhookId, reason: safety.reason, blockedAt: now } }];
  }
  if (!safety.blocked && wasBlocked) return [{ type: 'WebhookUnblocked', data: { webhookId, unblockedAt: now } }];
  return [];
}

/** The credential as the events carry it: a digest, or the scheme and the sealed secret's id. */
function credentialData(credential: WebhookCredential): { secretDigest: string } | { verification: SignedVerification } {
  return credential.scheme === 'bearer'
    ? { secretDigest: credential.secretDigest }
    : { verification: { scheme: credential.scheme, secretId: credential.secretId } };
}

function credentialState(data: {
  readonly secretDigest?: string;
  readonly verification?: SignedVerification;
}): Pick<ConfiguredWebhook, 'scheme' | 'secretDigest' | 'signingSecretId'> {
  if (data.verification) return { scheme: data.verification.scheme, secretDigest: null, signingSecretId: data.verification.secretId };
  return { scheme: 'bearer', secretDigest: data.secretDigest ?? null, signingSecretId: null };
}

export function decideWebhook(command: WebhookCommand, state: WebhookState): Decision<WebhookEvent> {
  switch (command.type) {
    case 'EnableWebhook': {
      if (state.status === 'enabled') {
        return reject('webhook_already_enabled', 'the webhook is enabled: rotate the secret or disable it first');
      }
      if (state.status === 'disabled' && state.webhookId !== command.webhookId) {
        return reject('validation_failed', 're-enabling must keep the webhook id (the URL is stable)');
      }
      if (command.credential.scheme !== 'bearer' && command.accountOverrideAllowed) {
        return reject(
          'validation_failed',
          `account_override_allowed must be false with ${command.credential.scheme} verification: a signed delivery runs for the default account`,
        );
      }
      const retentionProblem = retentionDaysProblem(command.payloadRetentionDays ?? null);
      if (retentionProblem) return reject('validation_failed', retentionProblem);
      const rules = command.rules ?? {};
      const invalidRules = rulesProblem(rules);
      if (invalidRules) return invalidRules;
      const wasBlocked = state.status === 'disabled' && state.blocked;
      return accept<WebhookEvent>(
        {
          type: 'WebhookEnabled',
          data: {
            webhookId: command.webhookId,
            routineId: command.routineId,
            ...credentialData(command.credential),
            defaultAccount: command.defaultAccount,
            accountOverrideAllowed: command.accountOverrideAllowed,
            ...(command.payloadRetentionDays === undefined || command.payloadRetentionDays === null
              ? {}
              : { payloadRetentionDays: command.payloadRetentionDays }),
            enabledAt: command.now,
          },
        },
        // Enabling starts with the rules the body gives (none when absent), as with the retention.
        ...rulesEvents(command.webhookId, { filter: null, payloadSchema: null }, rules, command.now),
        ...safetyEvents(command.webhookId, wasBlocked, command.safety, command.now),
      );
    }
    case 'RotateSecret':
      if (state.status !== 'enabled') return reject('webhook_not_enabled', 'only an enabled webhook can rotate its secret');
      if (command.credential.scheme !== state.scheme) {
        return reject(
          'validation_failed',
          `the webhook verifies ${state.scheme} deliveries: rotate keeps the scheme (disable and enable again to change it)`,
        );
      }
      return accept({
        type: 'SecretRotated',
        data: { webhookId: state.webhookId, ...credentialData(command.credential), rotatedAt: command.now },
      });
    case 'DisableWebhook':
      if (state.status === 'not_configured') return reject('webhook_not_configured', 'the routine has no webhook');
      if (state.status === 'disabled') return accept();
      return accept({ type: 'WebhookDisabled', data: { webhookId: state.webhookId, disabledAt: command.now } });
    case 'ReassessSafety':
      if (state.status === 'not_configured') return accept();
      return accept(...safetyEvents(state.webhookId, state.blocked, command.safety, command.now));
    case 'ChangeRetention':
      return decideRetention(command, state);
    case 'ChangeRules':
      if (state.status === 'not_configured') return reject('webhook_not_configured', 'the routine has no webhook');
      return decideRulesChange(state, command.rules, command.now);
    case 'HoldWebhook':
      return decideHold(command, state);
    case 'ReleaseWebhook':
      return decideRelease(command, state);
    default:
      return assertNever(command);
  }
}

/** Whole days in PAYLOAD_RETENTION_DAYS, or null (the default); the edge checks first, the decider is the rule. */
function retentionDaysProblem(days: number | null): string | undefined {
  if (days === null) return undefined;
  const { min, max } = PAYLOAD_RETENTION_DAYS;
  return Number.isInteger(days) && days >= min && days <= max
    ? undefined
    : `payload_retention_days must be a whole number of days from ${min} to ${max}, or null for the default`;
}

/**
 * Retention: an enabled or disabled webhook (a disabled one keeps its settings for its next
 * deliveries). The same value again records nothing. Never touches a stored payload: each keeps
 * the expiry it was given at acceptance.
 */
function decideRetention(command: Extract<WebhookCommand, { type: 'ChangeRetention' }>, state: WebhookState): Decision<WebhookEvent> {
  if (state.status === 'not_configured') return reject('webhook_not_configured', 'the routine has no webhook');
  const problem = retentionDaysProblem(command.payloadRetentionDays);
  if (problem) return reject('validation_failed', problem);
  if (state.payloadRetentionDays === command.payloadRetentionDays) return accept();
  return accept({
    type: 'WebhookRetentionChanged',
    data: { webhookId: state.webhookId, payloadRetentionDays: command.payloadRetentionDays, changedAt: command.now },
  });
}

export function evolveWebhook(state: WebhookState, event: WebhookEvent): WebhookState {
  switch (event.type) {
    case 'WebhookEnabled':
      return {
        status: 'enabled',
        webhookId: event.data.webhookId,
        routineId: event.data.routineId,
        ...credentialState(event.data),
        defaultAccount: event.data.defaultAccount,
        accountOverrideAllowed: event.data.accountOverrideAllowed,
        payloadRetentionDays: event.data.payloadRetentionDays ?? null,
        blocked: state.status === 'not_configured' ? false : state.blocked,
        blockedReason: state.status === 'not_configured' ? null : state.blockedReason,
        // A hold outlives disable and enable: the deliveries it holds still wait for their release.
        hold: state.status === 'not_configured' ? null : state.hold,
        ...(state.status === 'not_configured' || state.lastRelease === undefined ? {} : { lastRelease: state.lastRelease }),
        filter: null,
        payloadSchema: null,
      };
    case 'SecretRotated':
      return state.status === 'not_configured' ? state : { ...state, ...credentialState(event.data) };
    case 'WebhookDisabled':
      return state.status === 'not_configured' ? state : { ...state, status: 'disabled' };
    case 'WebhookBlocked':
      return state.status === 'not_configured' ? state : { ...state, blocked: true, blockedReason: event.data.reason };
    case 'WebhookUnblocked':
      return state.status === 'not_configured' ? state : { ...state, blocked: false, blockedReason: null };
    case 'WebhookHeld':
      if (state.status === 'not_configured') return state;
      return {
        ...state,
        hold: { since: state.hold?.since ?? event.data.heldAt, by: state.hold?.by ?? event.data.heldBy, releaseAt: event.data.releaseAt },
      };
    case 'WebhookReleased':
      return state.status === 'not_configured' ? state : { ...state, hold: null, lastRelease: event.data.discard ? 'discard' : 'run' };
    case 'WebhookRetentionChanged':
      return state.status === 'not_configured' ? state : { ...state, payloadRetentionDays: event.data.payloadRetentionDays };
    case 'WebhookFilterChanged':
      return state.status === 'not_configured' ? state : { ...state, filter: event.data.filter };
    case 'WebhookPayloadSchemaChanged':
      return state.status === 'not_configured' ? state : { ...state, payloadSchema: event.data.payloadSchema };
    default:
      return assertNever(event);
  }
}

export const webhookDecider: Decider<WebhookCommand, WebhookEvent, WebhookState> = {
  decide: decideWebhook,
  evolve: evolveWebhook,
  initialState: initialWebhookState,
};
