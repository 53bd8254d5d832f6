// Nest's decorators, met while loading @wts/platform and @wts/messaging, need the metadata API on this thread too.
import 'reflect-metadata';
import type { RelaySnapshot } from '@wts/messaging';
import { startTracing, tracedEventStore } from '@wts/observability';
import { openEventStore } from '../event-store.factory';
import { relayOnThread, type RelayOnlySettings } from './relay-thread.factory';
import { serveThread } from './service-thread.protocol';

/**
 * One relay on a thread of its own (the ingress's, to webhooks.events.v1), with its own handle on
 * the event store: reading, encoding and producing never hold up the service's event loop.
 * Leadership, checkpoint and parking are the relay's, unchanged. The main thread's side is the
 * ServiceThread of relayThread().
 */
serveThread<RelayOnlySettings, RelaySnapshot>('relay', async (settings, { logger, fatal }) => {
  // Its producer spans continue the events' traces, as they did on the main thread.
  const tracing = await startTracing({ requested: settings.tracing.enabled, serviceName: settings.serviceName });
  const opened = await openEventStore(settings);
  const store = tracing ? tracedEventStore(opened.store) : opened.store;
  const relay = relayOnThread(settings.definition, settings.relay, { store, checkpoints: opened.checkpoints, logger });
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
