import type { Event } from './event.types';

/** The account a run is triggered for, with the address that selected it (own email or alias). */
export interface TriggerAccount {
  readonly accountId: string;
  readonly email: string;
}

export type WebhookEnabled = Event<
  'WebhookEnabled',
  {
    readonly webhookId: string;
    readonly routineId: string;
    /** SHA-256 of the secret, hex. The secret itself never enters an event. */
    readonly secretDigest: string;
    readonly defaultAccount: TriggerAccount;
    readonly accountOverrideAllowed: boolean;
    readonly enabledAt: string;
  }
>;

export type SecretRotated = Event<
  'SecretRotated',
  { readonly webhookId: string; readonly secretDigest: string; readonly rotatedAt: string }
>;

export type WebhookDisabled = Event<'WebhookDisabled', { readonly webhookId: string; readonly disabledAt: string }>;

export type WebhookBlocked = Event<'WebhookBlocked', { readonly webhookId: string; readonly reason: string; readonly blockedAt: string }>;

export type WebhookUnblocked = Event<'WebhookUnblocked', { readonly webhookId: string; readonly unblockedAt: string }>;

/**
 * Claims the one webhook id of a routine, on stream `webhook_slot-<routine id>` appended with
 * "stream must not exist": concurrent first enables (on any replica) agree on one id.
 */
export type WebhookIdAssigned = Event<
  'WebhookIdAssigned',
  { readonly routineId: string; readonly webhookId: string; readonly assignedAt: string }
>;

export type WebhookEvent = WebhookEnabled | SecretRotated | WebhookDisabled | WebhookBlocked | WebhookUnblocked;
