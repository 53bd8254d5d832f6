/** The webhook decider's unit specs' events, commands and states (test code, not shipped). */
import type { TriggerAccount, WebhookEvent } from '@wts/contracts';
import { ACCOUNT_A, ROUTINE_ID, T0, T1, WEBHOOK_ID, specFor } from '@wts/testing';
import type { SafetyVerdict } from '../../safety/safety.policy';
import { webhookDecider, type ConfiguredWebhook, type WebhookCommand, type WebhookCredential, type WebhookState } from '../webhook.decider';

export const T2 = '2024-05-01T12:10:00.000Z';
export const DIGEST_1 = 'a'.repeat(64);
export const DIGEST_2 = 'b'.repeat(64);
export const DEFAULT_ACCOUNT: TriggerAccount = { accountId: ACCOUNT_A, email: 'ops@example.com' };

export const SAFE: SafetyVerdict = { blocked: false };

export const spec = specFor(webhookDecider);

export const bearer = (secretDigest: string): WebhookCredential => ({ scheme: 'bearer', secretDigest });

export function enable(
  overrides: Partial<Extract<WebhookCommand, { type: 'EnableWebhook' }>> & { readonly secretDigest?: string } = {},
): WebhookCommand {
  const { secretDigest = DIGEST_1, ...rest } = overrides;
  return {
    type: 'EnableWebhook',
    webhookId: WEBHOOK_ID,
    routineId: ROUTINE_ID,
    credential: bearer(secretDigest),
    defaultAccount: DEFAULT_ACCOUNT,
    accountOverrideAllowed: false,
    safety: SAFE,
    now: T0,
    ...rest,
  };
}

export const enabled = (overrides: Partial<Extract<WebhookEvent, { type: 'WebhookEnabled' }>['data']> = {}): WebhookEvent => ({
  type: 'WebhookEnabled',
  data: {
    webhookId: WEBHOOK_ID,
    routineId: ROUTINE_ID,
    secretDigest: DIGEST_1,
    defaultAccount: DEFAULT_ACCOUNT,
    accountOverrideAllowed: false,
    enabledAt: T0,
    ...overrides,
  },
});
export const disabled = (disabledAt = T1): WebhookEvent => ({ type: 'WebhookDisabled', data: { webhookId: WEBHOOK_ID, disabledAt } });

/** The state after enabled() (and disabled(), for status 'disabled'): what the case changes is passed in. */
export const configured = (status: ConfiguredWebhook['status'], overrides: Partial<ConfiguredWebhook> = {}): ConfiguredWebhook => ({
  status,
  webhookId: WEBHOOK_ID,
  routineId: ROUTINE_ID,
  scheme: 'bearer',
  secretDigest: DIGEST_1,
  signingSecretId: null,
  defaultAccount: DEFAULT_ACCOUNT,
  accountOverrideAllowed: false,
  payloadRetentionDays: null,
  filter: null,
  payloadSchema: null,
  blocked: false,
  blockedReason: null,
  hold: null,
  ...overrides,
});

export function fold(events: readonly WebhookEvent[]): WebhookState {
  return events.reduce(webhookDecider.evolve, webhookDecider.initialState());
}
