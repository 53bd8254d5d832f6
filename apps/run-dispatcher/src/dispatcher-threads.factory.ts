import type { AppConfig } from '@wts/config';
import type { EventStore, GlobalPosition } from '@wts/event-store';
import { Relays, trackRelaySnapshot, type RelaySnapshot } from '@wts/messaging';
import { metrics } from '@wts/observability';
import { ServiceThread, exitOnRelayRefusal, relayThreadName, type RelayThreadSettings, type ThreadLogger } from '@wts/platform';
import { projectorProgress } from './projector.metrics';

/**
 * The dispatcher's followers of the store beside its event loop, where Kafka messages become runs:
 * the read-model projector and, on the Kafka shape, the relay of run events to routines.runs.v1,
 * on one thread (store-followers.thread) with its own handles on the store and the read models,
 * opened from the service's settings. Their reading, decoding, framing and writing never hold up a
 * dispatch (docs/bench/consolidation, ninth and tenth passes). One thread, not one each: a V8
 * isolate and a store writer thread cost about 50 MiB, and neither needs a core of its own.
 */

/** What the thread opens and runs: the service's event store and read-model database, the relay with Kafka. */
export type StoreFollowersSettings = Pick<AppConfig, 'eventStore' | 'storage' | 'database' | 'tracing'> & {
  readonly runRelay: RelayThreadSettings | undefined;
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
  });
  metrics.trackProjector(projectorProgress(deps.store, () => thread.progress()?.projector));
  if (settings.runRelay) trackRelaySnapshot(relayThreadName(Relays.dispatcherRuns, settings.runRelay), () => thread.progress()?.runRelay);
  return thread;
}
