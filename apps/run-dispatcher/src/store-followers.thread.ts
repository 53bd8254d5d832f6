// Nest's decorators, met while loading @wts/platform and @wts/messaging, need the metadata API on this thread too.
import 'reflect-metadata';
import { ReadModelProjector } from '@wts/application';
import { KafkaRelaySupervisor, Relays } from '@wts/messaging';
import { startTracing, tracedEventStore } from '@wts/observability';
import { openEventStore, openReadModelStore, serveThread, type ThreadLogger } from '@wts/platform';
import { runRelayName, type StoreFollowersProgress, type StoreFollowersSettings } from './dispatcher-threads.factory';

/** Each follower's lines under its own context, as the service logs them. */
function inContext(logger: ThreadLogger, context: string): ThreadLogger {
  return {
    info: (fields, message) => logger.info({ context, ...fields }, message),
    warn: (fields, message) => logger.warn({ context, ...fields }, message),
    error: (fields, message) => logger.error({ context, ...fields }, message),
  };
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
  const relaySettings = settings.runRelay;
  const relay =
    relaySettings &&
    new KafkaRelaySupervisor({
      connection: relaySettings.kafka,
      definition: { ...Relays.dispatcherRuns, name: runRelayName(relaySettings) },
      topics: relaySettings.isolated?.topics,
      store,
      checkpoints: opened.checkpoints,
      // routines.runs.v1 carries payloads: created within this retention, refused beyond it.
      payloadRetentionSeconds: relaySettings.payloadRetentionSeconds,
      logger: inContext(logger, `relay ${runRelayName(relaySettings)}`),
    });
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
