import type { AppConfig, KafkaConnectionSettings } from '@wts/config';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import { Relays, exitOnRelayRefusal, trackRelaySnapshot, type KafkaTopicNames, type RelaySnapshot } from '@wts/messaging';
import { metrics } from '@wts/observability';
import { ServiceThread, type ThreadLogger } from '@wts/platform';
import { projectorProgress } from './projector.metrics';

/**
 * The dispatcher's followers of the store beside its event loop, where Kafka messages become runs:
 * the read-model projector and, on the Kafka shape, the relay of run events to routines.runs.v1,
 * on one thread (store-followers.thread) with its own handles on the store and the read models,
 * opened from the service's settings. Their reading, decoding, framing and writing never hold up a
 * dispatch (docs/bench/consolidation, ninth and tenth passes). One thread, not one each: a V8
 * isolate and a store writer thread cost about 50 MiB, and neither needs a core of its own.
 */

/**
 * The thread's young generation (V8's default: 48 MB, two semi-spaces of 16 MB). The relay keeps a
 * batch's messages until the broker acknowledges them and the projector its rows until they commit:
 * with the default, those survived two scavenges, were promoted and needed a mark-compact every few
 * seconds. At 1,000 deliveries/s (--trace-gc, 11 s): 29 scavenges and 3 mark-compacts, 423 ms, with
 * the default; 14 scavenges, none, 117 ms, with 96 (192 did no better). At most 32 MB more memory.
 */
export const STORE_FOLLOWERS_YOUNG_GENERATION_MB = 96;

/** The run relay's part: the broker, and how long routines.runs.v1 may keep payloads. */
export interface RunRelaySettings {
  readonly kafka: KafkaConnectionSettings;
  /** PAYLOAD_RETENTION_SECONDS: routines.runs.v1 carries payloads, so it must not keep them longer. */
  readonly payloadRetentionSeconds: number;
  /** A test's own relay name (its checkpoint, its leadership group) and topics; the service's unless given. */
  readonly isolated?: { readonly name: string; readonly topics: KafkaTopicNames };
}

/** What the thread opens and runs: the service's event store and read-model database, the relay with Kafka. */
export type StoreFollowersSettings = Pick<AppConfig, 'eventStore' | 'storage' | 'database' | 'tracing'> & {
  readonly runRelay: RunRelaySettings | undefined;
};

/** Where the read models are, and whether this replica writes them: what the lag metric reads. */
export interface ProjectorThreadProgress {
  readonly committed: GlobalPosition | undefined;
  readonly running: boolean;
}

export interface StoreFollowersProgress {
  readonly projector: ProjectorThreadProgress;
  readonly runRelay: RelaySnapshot | undefined;
}

export type StoreFollowersThread = ServiceThread<StoreFollowersSettings, StoreFollowersProgress>;

/** The relay's name: its checkpoint and leadership group (a test's own when isolated). */
export function runRelayName(settings: RunRelaySettings): string {
  return settings.isolated?.name ?? Relays.dispatcherRuns.name;
}

/**
 * The thread, not started. The gauges of the projector's lag (measured against `store`) and of the
 * relay (wts_relay_*) read its last report; a relay's refusal to run ends the service (exit 1).
 */
export function storeFollowersThread(
  settings: StoreFollowersSettings,
  deps: { readonly store: EventStore; readonly logger: ThreadLogger; readonly refused?: (error: Error) => void },
): StoreFollowersThread {
  const thread = new ServiceThread<StoreFollowersSettings, StoreFollowersProgress>({
    name: 'store followers',
    directory: __dirname,
    baseName: 'store-followers.thread',
    settings,
    logger: deps.logger,
    onFatal: deps.refused ?? exitOnRelayRefusal,
    resourceLimits: { maxYoungGenerationSizeMb: STORE_FOLLOWERS_YOUNG_GENERATION_MB },
  });
  metrics.trackProjector(projectorProgress(deps.store, () => thread.progress()?.projector));
  if (settings.runRelay) trackRelaySnapshot(runRelayName(settings.runRelay), () => thread.progress()?.runRelay);
  return thread;
}
