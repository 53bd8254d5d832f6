import type { DeliveryAccepted, RoutineDefinition, TriggerAccount } from '@wts/contracts';

/**
 * The ids, times and records most specs build their scenarios from: one spelling of each, so a
 * spec states only what its case changes (`acceptedDelivery({ idempotencyKey: null })`).
 */

export const ACCOUNT_A = 'acc_AAAAAAAAAAAAAAAAAAAAAA';
export const ACCOUNT_B = 'acc_BBBBBBBBBBBBBBBBBBBBBB';
export const ACCOUNT_C = 'acc_CCCCCCCCCCCCCCCCCCCCCC';
export const ROUTINE_ID = 'rtn_AAAAAAAAAAAAAAAAAAAAAA';
export const WEBHOOK_ID = 'whk_AAAAAAAAAAAAAAAAAAAAAA';
export const DELIVERY_ID = 'dlv_AAAAAAAAAAAAAAAAAAAAAAAA';
export const RUN_ID = 'run_AAAAAAAAAAAAAAAAAAAAAAAA';

/** A scenario's first instant, and one five minutes later. */
export const T0 = '2024-05-01T12:00:00.000Z';
export const T1 = '2024-05-01T12:05:00.000Z';

export const TEAM_ACCOUNT: TriggerAccount = { accountId: ACCOUNT_A, email: 'Team@Example.com' };

/** The data of a DeliveryAccepted: a keyed JSON delivery to WEBHOOK_ID, received at T0 by TEAM_ACCOUNT. */
export function acceptedDelivery(overrides: Partial<DeliveryAccepted['data']> = {}): DeliveryAccepted['data'] {
  return {
    deliveryId: DELIVERY_ID,
    webhookId: WEBHOOK_ID,
    routineId: ROUTINE_ID,
    runId: RUN_ID,
    triggerAccount: TEAM_ACCOUNT,
    payloadFormat: 'json',
    payloadBytes: 27,
    payloadExpiresAt: '2024-05-31T12:00:00.000Z',
    contentType: 'application/json',
    idempotencyKey: 'order-42',
    requestDigest: 'a'.repeat(64),
    receivedAt: T0,
    ...overrides,
  };
}

/**
 * The data of a DeliveryAccepted of `text` as text/plain without an idempotency key, received now
 * and kept a day: for specs whose store follows the clock (a worker, a projector).
 */
export function freshTextDelivery(text: string, overrides: Partial<DeliveryAccepted['data']> = {}): DeliveryAccepted['data'] {
  return acceptedDelivery({
    payloadFormat: 'text',
    payloadBytes: Buffer.byteLength(text),
    payloadExpiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    contentType: 'text/plain',
    idempotencyKey: null,
    receivedAt: new Date().toISOString(),
    ...overrides,
  });
}

/** A supervised routine with one internal and one externally sending tool, scoped to ACCOUNT_A. */
export function triageRoutine(overrides: Partial<RoutineDefinition> = {}): RoutineDefinition {
  return {
    name: 'Triage',
    instructions: 'Summarise the ticket and file it.',
    tools: [
      { name: 'tickets.create', sendsExternally: false },
      { name: 'email.send', sendsExternally: true },
    ],
    mode: 'supervised',
    accountScope: [ACCOUNT_A],
    ...overrides,
  };
}
