import type { DeliveryAccepted, PayloadRecord, RunCreated, RunFraming } from '@wts/contracts';
import { frameUntrustedPayload } from './untrusted-message.framer';

/**
 * The framer's version. Bump it whenever frameUntrustedPayload's output changes for any input, and
 * keep the previous version's framer callable: a run is framed, when read, by the version it was
 * created with, so its message never changes under it.
 */
export const FRAMER_VERSION = 1;

/** What a run records of its delivery to frame its message later: everything but the payload. */
export function runFraming(delivery: DeliveryAccepted['data']): RunFraming {
  return {
    version: FRAMER_VERSION,
    receivedAt: delivery.receivedAt,
    contentType: delivery.contentType,
    ...(delivery.sender ? { sender: delivery.sender } : {}),
  };
}

/**
 * The run's initial message: its payload framed as untrusted data by the framer version the run
 * was created with (byte-identical to the message a run stored before messages were framed on
 * read), or the message a run written before then stored.
 */
export function runInitialMessage(run: RunCreated['data'], payload: PayloadRecord): string {
  if (run.framing === null) {
    if (run.legacyInitialMessage === undefined) throw new Error(`run ${run.runId} has neither framing nor a stored message`);
    return run.legacyInitialMessage;
  }
  if (run.framing.version !== FRAMER_VERSION)
    throw new Error(`run ${run.runId} was framed by version ${run.framing.version}, unknown to this build`);
  return frameUntrustedPayload({
    deliveryId: run.deliveryId,
    webhookId: run.webhookId,
    receivedAt: run.framing.receivedAt,
    contentType: run.framing.contentType,
    payload,
    ...(run.framing.sender ? { sender: run.framing.sender } : {}),
  });
}
