// Nest's decorators, met while loading @wts/platform and @wts/messaging, need the metadata API on this thread too.
import 'reflect-metadata';
import { ReadModelProjector } from '@wts/application';
import { KafkaRelaySupervisor, Relays } from '@wts/messaging';
import { startTracing, tracedEventStore } from '@wts/observability';
import { openEventStore, openReadModelStore, serveThread, type ThreadLogger } from '@wts/platform';
import type { CheckpointStore, EventStore } from '@wts/event-store';
import {
  runRelayName,
  type RunRelaySettings,
  type StoreFollowersProgress,
  type StoreFollowersSettings,
} from './dispatcher-threads.factory';

/** Each follower's lines under its own context, as the service logs them. */
function inContext(logger: ThreadLogger, context: string): ThreadLogger {
  return {
    info: (fields, message) => logger.info({ context, ...fields }, message),
    warn: (fields, message) => logger.warn({ context, ...fields }, message),
    error: (fields, message) => logger.error({ context, ...fields }, message),
  };
}

/** The relay of run events to routines.runs.v1, under its name (a test's own when isolated). */
function runRelay(
  settings: RunRelaySettings,
  deps: { readonly store: EventStore; readonly checkpoints: CheckpointStore; readonly logger: ThreadLogger },
): KafkaRelaySupervisor {
  const name = runRelayName(settings);
  return new KafkaRelaySupervisor({
    connection: settings.kafka,
    definition: { ...Relays.dispatcherRuns, name },
    topics: settings.isolated?.topics,
    store: deps.store,
    checkpoints: deps.checkpoints,
    // routines.runs.v1 carries payloads: created within this retention, refused beyond it.
    payloadRetentionSeconds: settings.payloadRetentionSeconds,
    logger: inContext(deps.logger, `relay ${name}`),
  });
}

/**
 * The read-model projector and, on the Kafka shape, the relay of run events (RunCreated →
 * routines.runs.v1), on a thread of their own with their own handles on the event store and the
 * read-model database. Exactly-once projection, its lease and checkpoint, and the relay's
 * leadership, checkpoint and parking are theirs, unchanged. The main thread's side is the
 * ServiceThread of storeFollowersThread().
 */
serveThread<StoreFollowersSettings, StoreFollowersProgress>('store followers', async (settings, { logger, fatal }) => {
  // The relay's producer spans continue the runs' traces, as they did on the main thread.
  const tracing = settings.runRelay
    ? await startTracing({ requested: settings.tracing.enabled, serviceName: 'run-dispatcher' })
    : undefined;
  const opened = await openEventStore(settings);
  const store = tracing ? tracedEventStore(opened.store) : opened.store;
  const { readModels } = await openReadModelStore(settings);
  const projector = new ReadModelProjector(opened.store, readModels, inContext(logger, 'ReadModelProjector'));
  const relay = settings.runRelay && runRelay(settings.runRelay, { store, checkpoints: opened.checkpoints, logger });
  projector.start();
  relay?.start().catch(fatal);
  return {
    progress: () => ({
      projector: { committed: projector.committedPosition(), running: projector.isRunning },
      runRelay: relay?.snapshot(),
    }),
    // The relay's batch in flight is acknowledged and checkpointed, the projector's committed.
    stop: async () => {
      await Promise.all([relay?.stop(), projector.stop()]);
      await readModels.close();
      await store.close();
      await tracing?.shutdown();
    },
  };
});
