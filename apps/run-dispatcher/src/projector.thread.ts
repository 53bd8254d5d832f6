// Nest's decorators, met while loading @wts/platform, need the metadata API on this thread too.
import 'reflect-metadata';
import { ReadModelProjector } from '@wts/application';
import { openEventStore, openReadModelStore, serveThread } from '@wts/platform';
import type { ProjectorThreadProgress, ProjectorThreadSettings } from './dispatcher-threads.factory';

/**
 * The read-model projector on a thread of its own, with its own handles on the event store and
 * the read-model database: reading, decoding and writing the listings' rows never holds up the
 * dispatcher's event loop (docs/bench/consolidation, ninth pass). Its main-thread side is the
 * ServiceThread of projectorThread().
 */
serveThread<ProjectorThreadSettings, ProjectorThreadProgress>('read-model projector', async (settings, { logger }) => {
  const { store } = await openEventStore(settings);
  const { readModels } = await openReadModelStore(settings);
  const projector = new ReadModelProjector(store, readModels, logger);
  projector.start();
  return {
    progress: () => ({ committed: projector.committedPosition(), running: projector.isRunning }),
    stop: async () => {
      await projector.stop();
      await readModels.close();
      await store.close();
    },
  };
});
