import type { AppConfig, KafkaConnectionSettings } from '@wts/config';
import type { CheckpointStore, EventStore } from '@wts/event-store';
import { KafkaRelaySupervisor, trackRelaySnapshot, type KafkaTopicNames, type RelayDefinition, type RelaySnapshot } from '@wts/messaging';
import type { ThreadLogger } from './service-thread.protocol';
import { ServiceThread } from './service-thread.supervisor';

/** What a relay on a service thread needs besides the store: plain data, copied to the thread. */
export interface RelayThreadSettings {
  readonly kafka: KafkaConnectionSettings;
  /** PAYLOAD_RETENTION_SECONDS: a relay's topic that carries payloads (routines.runs.v1) must not keep them longer. */
  readonly payloadRetentionSeconds: number;
  /** A test's own relay name (its checkpoint, its leadership group) and topics; the service's unless given. */
  readonly isolated?: { readonly name: string; readonly topics: KafkaTopicNames };
}

/** The relay's name: its checkpoint, its leadership group, its gauges' label (a test's own when isolated). */
export function relayThreadName(definition: RelayDefinition, settings: RelayThreadSettings): string {
  return settings.isolated?.name ?? definition.name;
}

/**
 * A relay of `definition` made on a service thread, from the thread's own handle on the store. Not
 * started: a refusal to start (KafkaRetentionRefusedError) is the thread's fatal error.
 */
export function relayOnThread(
  definition: RelayDefinition,
  settings: RelayThreadSettings,
  deps: { readonly store: EventStore; readonly checkpoints: CheckpointStore; readonly logger: ThreadLogger },
): KafkaRelaySupervisor {
  const name = relayThreadName(definition, settings);
  return new KafkaRelaySupervisor({
    connection: settings.kafka,
    definition: { ...definition, name },
    topics: settings.isolated?.topics,
    store: deps.store,
    checkpoints: deps.checkpoints,
    payloadRetentionSeconds: settings.payloadRetentionSeconds,
    logger: deps.logger,
  });
}

/** What relay.thread opens and runs: the service's event store, tracing as configured, one relay. */
export type RelayOnlySettings = Pick<AppConfig, 'eventStore' | 'storage' | 'tracing'> & {
  readonly definition: RelayDefinition;
  readonly relay: RelayThreadSettings;
  /** The service the relay's spans are of. */
  readonly serviceName: string;
};

export type RelayThread = ServiceThread<RelayOnlySettings, RelaySnapshot>;

/** The default answer to a relay's refusal to run: the reason on stderr, and the process exits 1 (nothing was relayed yet). */
export const exitOnRelayRefusal = (error: Error): void => {
  process.stderr.write(`refusing to run: ${error.message}\n`);
  process.exit(1);
};

/**
 * A relay on a thread of its own (relay.thread), not started: forwarding, leadership and parking
 * never hold up the service's event loop. Its gauges (wts_relay_*) read the thread's last report.
 */
export function relayThread(settings: RelayOnlySettings, logger: ThreadLogger, refused = exitOnRelayRefusal): RelayThread {
  const name = relayThreadName(settings.definition, settings.relay);
  const thread = new ServiceThread<RelayOnlySettings, RelaySnapshot>({
    name: `relay ${name}`,
    directory: __dirname,
    baseName: 'relay.thread',
    settings,
    logger,
    onFatal: refused,
  });
  trackRelaySnapshot(name, () => thread.progress());
  return thread;
}
