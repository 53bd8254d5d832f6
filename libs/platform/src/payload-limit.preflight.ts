import { ConfigurationError, type AppConfig } from '@wts/config';
import { largestBodyThatFits, worstDeliveryEventBytes, worstRunEventBytes } from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import { KAFKA_MAX_EVENT_BYTES } from '@wts/messaging';

/** The largest event every part of this deployment takes: the store's limit, and Kafka's when relayed. */
export function maxEventBytes(config: AppConfig, store: EventStore): number {
  return Math.min(store.maxEventBytes, config.kafka ? KAFKA_MAX_EVENT_BYTES : Number.POSITIVE_INFINITY);
}

/**
 * Refuses, at start, a WEBHOOK_MAX_PAYLOAD_BYTES whose worst-case events would not fit: a body the
 * ingress answers 202 must always be storable, relayable and turned into a run. (A large routine
 * can still make a RunCreated bigger: that body is answered 413, per request.)
 */
export function assertPayloadLimitFits(config: AppConfig, store: EventStore): void {
  const limit = maxEventBytes(config, store);
  const body = config.limits.maxPayloadBytes;
  const worst = Math.max(worstDeliveryEventBytes(body), worstRunEventBytes(body, 0));
  if (worst <= limit) return;
  const holder =
    limit === store.maxEventBytes
      ? config.eventStore.connectionString
        ? "the event store's maximum append size (EVENTSTORE_MAX_APPEND_BYTES, which must match the server's MaxAppendSize)"
        : "the event store's limit per event"
      : "Kafka's topic limit (max.message.bytes)";
  throw new ConfigurationError([
    `WEBHOOK_MAX_PAYLOAD_BYTES=${body} does not fit: a body of that size can make an event of ${worst} bytes, above ${holder} of ${limit} bytes. ` +
      `Lower WEBHOOK_MAX_PAYLOAD_BYTES to at most ${largestBodyThatFits(limit, 0)}, or raise the limit.`,
  ]);
}
