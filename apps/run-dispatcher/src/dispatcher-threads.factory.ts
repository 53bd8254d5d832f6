import type { AppConfig, KafkaConnectionSettings } from '@wts/config';
import type { GlobalPosition } from '@wts/event-store';
import { Relays, exitOnRelayRefusal, trackRelaySnapshot, type KafkaTopicNames, type RelaySnapshot } from '@wts/messaging';
import { ServiceThread, type ThreadLogger } from '@wts/platform';

/**
 * The dispatcher's two threads beside its event loop, where Kafka messages become runs: the
 * read-model projector (projector.thread) and, on the Kafka shape, the relay of run events to
 * routines.runs.v1 (run-relay.thread). Each opens its own handles on the store from the service's
 * settings, so its reading, decoding and writing never holds up a dispatch (docs/bench/consolidation).
 */

/** What the projector thread opens: the service's event store and read-model database, as configured. */
export type ProjectorThreadSettings = Pick<AppConfig, 'eventStore' | 'storage' | 'database'>;

/** Where the read models are, and whether this replica writes them: what the lag metric reads. */
export interface ProjectorThreadProgress {
  readonly committed: GlobalPosition | undefined;
  readonly running: boolean;
}

/** What the run relay's thread opens and runs: the event store, the broker, tracing as configured. */
export type RunRelayThreadSettings = Pick<AppConfig, 'eventStore' | 'storage' | 'tracing'> & {
  readonly kafka: KafkaConnectionSettings;
  /** PAYLOAD_RETENTION_SECONDS: routines.runs.v1 carries payloads, so it must not keep them longer. */
  readonly payloadRetentionSeconds: number;
  /** A test's own relay name (its checkpoint, its leadership group) and topics; the service's unless given. */
  readonly isolated?: { readonly name: string; readonly topics: KafkaTopicNames };
};

export function projectorThread(
  settings: ProjectorThreadSettings,
  logger: ThreadLogger,
): ServiceThread<ProjectorThreadSettings, ProjectorThreadProgress> {
  return new ServiceThread({ name: 'read-model projector', directory: __dirname, baseName: 'projector.thread', settings, logger });
}

/** The relay's gauges (wts_relay_*) read its thread's last report; a refusal to run ends the service (exit 1). */
export function runRelayThread(
  settings: RunRelayThreadSettings,
  logger: ThreadLogger,
  refused: (error: Error) => void = exitOnRelayRefusal,
): ServiceThread<RunRelayThreadSettings, RelaySnapshot> {
  const name = settings.isolated?.name ?? Relays.dispatcherRuns.name;
  const thread = new ServiceThread<RunRelayThreadSettings, RelaySnapshot>({
    name: `relay ${name}`,
    directory: __dirname,
    baseName: 'run-relay.thread',
    settings,
    logger,
    onFatal: refused,
  });
  trackRelaySnapshot(name, () => thread.progress());
  return thread;
}
