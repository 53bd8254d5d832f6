import {
  ErasureJob,
  ErasureRunner,
  PayloadReader,
  PayloadRemover,
  awaitProjector,
  cryptoRandom,
  erasureCandidatesOf,
  systemClock,
} from '@wts/application';
import type { EventStore } from '@wts/event-store';
import type { ReadModelStore } from '@wts/read-models';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ErasureRunnerLifecycle } from '../../apps/run-dispatcher/src/erasure-runner.lifecycle';

/** The erasure job as the run-dispatcher builds it, on `store` and `readModels`. */
export function erasureJob(store: EventStore, readModels: ReadModelStore): ErasureJob {
  return new ErasureJob({
    store,
    remover: new PayloadRemover(store, systemClock, cryptoRandom),
    reader: new PayloadReader(store),
    candidates: erasureCandidatesOf(readModels),
    readModelsAt: awaitProjector(readModels, { timeoutMs: 10_000, everyMs: 20 }),
    clock: systemClock,
    random: cryptoRandom,
  });
}

/** The run-dispatcher's erasure runner, in process, looking every `everyMs`: stop it with `onApplicationShutdown`. */
export function startErasureRunner(store: EventStore, readModels: ReadModelStore, everyMs = 100): ErasureRunnerLifecycle {
  const lifecycle = new ErasureRunnerLifecycle(new ErasureRunner(store, erasureJob(store, readModels)), everyMs);
  lifecycle.onApplicationBootstrap();
  return lifecycle;
}

/** Every file under `dir` (recursively) whose raw bytes contain any of `needles`, with the needle found. */
export function filesContaining(dir: string, needles: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path)) walk(join(path, name));
      return;
    }
    const bytes = readFileSync(path);
    for (const needle of needles) if (bytes.includes(Buffer.from(needle, 'utf8'))) found.push(`${path}: ${needle}`);
  };
  walk(dir);
  return found;
}
