import { ConfigurationError, loadConfig } from '@wts/config';
import type { EventStore } from '@wts/event-store';
import { KAFKA_MAX_EVENT_BYTES } from '@wts/messaging';
import { assertPayloadLimitFits, maxEventBytes } from './payload-limit.preflight';

const storeWithLimit = (maxEventBytes: number): EventStore => ({ maxEventBytes }) as EventStore;
/** The production shape needs an admin credential of its own (no token is generated for it). */
const eventStoreDb = { EVENTSTORE_CONNECTION_STRING: 'esdb://127.0.0.1:2113?tls=false', ADMIN_TOKEN: 'admin-token-of-the-test' };

describe('the payload limit against the store and Kafka', () => {
  it('given the defaults on the embedded store, then the configuration is accepted', () => {
    expect(() => assertPayloadLimitFits(loadConfig({}), storeWithLimit(1_000_000_000))).not.toThrow();
  });

  it('given EventStoreDB at its default 1 MiB append size and a 256 KiB limit, then start is refused with what to change', () => {
    const config = loadConfig(eventStoreDb);
    const check = (): void => assertPayloadLimitFits(config, storeWithLimit(config.eventStore.maxAppendBytes));
    expect(check).toThrow(ConfigurationError);
    expect(check).toThrow(/WEBHOOK_MAX_PAYLOAD_BYTES=262144 does not fit.*EVENTSTORE_MAX_APPEND_BYTES.*1048576 bytes.*at most 147456/);
  });

  it('given EventStoreDB raised to 16 MiB, then the default limit is accepted', () => {
    const config = loadConfig({ ...eventStoreDb, EVENTSTORE_MAX_APPEND_BYTES: '16777216' });
    expect(() => assertPayloadLimitFits(config, storeWithLimit(config.eventStore.maxAppendBytes))).not.toThrow();
  });

  it('given Kafka, then its topic limit bounds the payload even on the embedded store', () => {
    const config = loadConfig({ KAFKA_BROKERS: '127.0.0.1:9092', WEBHOOK_MAX_PAYLOAD_BYTES: String(4 * 1024 * 1024) });
    expect(maxEventBytes(config, storeWithLimit(1_000_000_000))).toBe(KAFKA_MAX_EVENT_BYTES);
    expect(() => assertPayloadLimitFits(config, storeWithLimit(1_000_000_000))).toThrow(/Kafka's topic limit/);
  });
});
