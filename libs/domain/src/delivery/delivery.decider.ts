import type { DeliveryAccepted, DeliveryEvent, DeliverySender, FilterVerdict, PayloadRecord, TriggerAccount } from '@wts/contracts';
import { accept, reject, singleEventDecider, type Decider, type Decision } from '../shared/decision';
import { judgeRepeat } from './idempotency.policy';

export interface AcceptDelivery {
  readonly type: 'AcceptDelivery';
  readonly deliveryId: string;
  readonly runId: string;
  readonly webhookId: string;
  readonly routineId: string;
  readonly triggerAccount: TriggerAccount;
  readonly payload: PayloadRecord;
  readonly contentType: string;
  readonly idempotencyKey: string | null;
  readonly requestDigest: string;
  /** This request's digest in the form deliveries stored before canonical JSON comparison (see judgeRepeat). */
  readonly legacyRequestDigest?: string;
  readonly now: string;
  readonly retentionMs: number;
  /** When the payload is removed as expired (ISO 8601): the webhook's payload retention, or the default, from now. */
  readonly payloadExpiresAt: string;
  /** A signed delivery's verified scheme and event type. */
  readonly sender?: DeliverySender;
  /** The webhook's filter matched or failed to evaluate (fail open); absent: no filter. */
  readonly filter?: FilterVerdict;
}

export type DeliveryState = DeliveryAccepted['data'] | null;

/**
 * A delivery stream holds one DeliveryAccepted. Deciding on an existing stream is how a repeat
 * is recognised: the same request → no new event (a replay); another request → 422.
 * An existing delivery past retention is not decided here: the caller moves to the next
 * generation's stream (see deliveryIdForIdempotencyKey).
 */
export function decideDelivery(command: AcceptDelivery, state: DeliveryState): Decision<DeliveryEvent> {
  if (state !== null) {
    const verdict = judgeRepeat(state, command.requestDigest, Date.parse(command.now), command.retentionMs, command.legacyRequestDigest);
    if (verdict.kind === 'reused') {
      return reject('idempotency_key_reused', 'this idempotency key was used for a different request');
    }
    return accept();
  }
  return accept({
    type: 'DeliveryAccepted',
    data: {
      deliveryId: command.deliveryId,
      webhookId: command.webhookId,
      routineId: command.routineId,
      runId: command.runId,
      triggerAccount: command.triggerAccount,
      payloadFormat: command.payload.format,
      payloadBytes: payloadBytes(command.payload),
      payloadExpiresAt: command.payloadExpiresAt,
      contentType: command.contentType,
      idempotencyKey: command.idempotencyKey,
      requestDigest: command.requestDigest,
      receivedAt: command.now,
      ...(command.sender ? { sender: command.sender } : {}),
      ...(command.filter ? { filter: command.filter } : {}),
    },
  });
}

/** The payload's size as UTF-8 bytes (what the payload store keeps). */
export function payloadBytes(payload: PayloadRecord): number {
  return new TextEncoder().encode(payload.format === 'json' ? payload.json : payload.text).length;
}

export const deliveryDecider: Decider<AcceptDelivery, DeliveryEvent, DeliveryState> = singleEventDecider(decideDelivery);
