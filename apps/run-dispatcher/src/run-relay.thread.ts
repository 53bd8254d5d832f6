// Nest's decorators, met while loading @wts/platform and @wts/messaging, need the metadata API on this thread too.
import 'reflect-metadata';
import { KafkaRelaySupervisor, Relays, type RelaySnapshot } from '@wts/messaging';
import { startTracing, tracedEventStore } from '@wts/observability';
import { openEventStore, serveThread } from '@wts/platform';
import type { RunRelayThreadSettings } from './dispatcher-threads.factory';

/**
 * The relay of run events (RunCreated → routines.runs.v1) on a thread of its own, with its own
 * handle on the event store: reading the runs' payloads, framing and producing them never holds up
 * the dispatcher's event loop (docs/bench/consolidation, tenth pass). Leadership, checkpoint and
 * parking are the relay's, unchanged. Its main-thread side is the ServiceThread of runRelayThread().
 */
serveThread<RunRelayThreadSettings, RelaySnapshot>(`relay ${Relays.dispatcherRuns.name}`, async (settings, { logger, fatal }) => {
  // Its producer spans continue the runs' traces, as they did on the main thread.
  const tracing = await startTracing({ requested: settings.tracing.enabled, serviceName: 'run-dispatcher' });
  const opened = await openEventStore(settings);
  const store = tracing ? tracedEventStore(opened.store) : opened.store;
  const relay = new KafkaRelaySupervisor({
    connection: settings.kafka,
    definition: { ...Relays.dispatcherRuns, name: settings.isolated?.name ?? Relays.dispatcherRuns.name },
    topics: settings.isolated?.topics,
    store,
    checkpoints: opened.checkpoints,
    // routines.runs.v1 carries payloads: created within this retention, refused beyond it.
    payloadRetentionSeconds: settings.payloadRetentionSeconds,
    logger,
  });
  relay.start().catch(fatal);
  return {
    progress: () => relay.snapshot(),
    stop: async () => {
      await relay.stop();
      await store.close();
      await tracing?.shutdown();
    },
  };
});
