// Nest's decorators, met while loading @wts/platform, need the metadata API on this thread too.
import 'reflect-metadata';
import { ReadModelProjector, type ProjectorLogger } from '@wts/application';
import { openEventStore, openReadModelStore } from '@wts/platform';
import { describeError } from '@wts/runtime';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { ProjectorStopCommand, ProjectorThreadData, ProjectorThreadReport } from './projector-thread.protocol';

/**
 * The read-model projector on a thread of its own, with its own handles on the event store and
 * the read-model database: reading, decoding and writing the listings' rows never holds up the
 * dispatcher's event loop, where Kafka messages become runs (docs/bench/consolidation, ninth pass).
 * The main thread's side is ProjectorThread.
 */
const { settings } = workerData as ProjectorThreadData;
if (!parentPort) throw new Error('projector.thread runs as a worker thread');
const port: MessagePort = parentPort;
const report = (message: ProjectorThreadReport): void => port.postMessage(message);

/** How often the thread says where the read models are (the lag metric reads it). */
const PROGRESS_EVERY_MS = 250;

/** Log fields cross the thread as data: an error as its name and message. */
function loggable(fields: object): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...fields };
  if ('err' in copy) copy.err = describeError(copy.err);
  return copy;
}

const logger: ProjectorLogger = {
  info: (fields, message) => report({ kind: 'log', level: 'info', fields: loggable(fields), message }),
  error: (fields, message) => report({ kind: 'log', level: 'error', fields: loggable(fields), message }),
};

async function run(): Promise<void> {
  const { store } = await openEventStore(settings);
  const { readModels } = await openReadModelStore(settings);
  const projector = new ReadModelProjector(store, readModels, logger);
  const progress = (): void => report({ kind: 'progress', committed: projector.committedPosition(), running: projector.isRunning });
  const ticker = setInterval(progress, PROGRESS_EVERY_MS);
  port.on('message', (command: ProjectorStopCommand) => {
    if (command.kind !== 'stop') return;
    clearInterval(ticker);
    void (async () => {
      await projector.stop();
      progress();
      await readModels.close();
      await store.close();
      report({ kind: 'stopped' });
      port.close();
    })();
  });
  projector.start();
  progress();
}

run().catch((error: unknown) => {
  logger.error({ err: error }, 'read-model projector thread could not start');
  process.exit(1);
});
