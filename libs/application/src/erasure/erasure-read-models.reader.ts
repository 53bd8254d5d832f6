import { comparePositions, type EventStore, type GlobalPosition } from '@wts/event-store';
import type { ReadModelStore } from '@wts/read-models';
import { sleep } from '@wts/runtime';
import { PROJECTED_PREFIXES, READ_MODEL_PROJECTION, toProjectionChanges } from '../projection/read-model.projection';
import type { ReadModelsAt } from './erasure.job';
import type { ErasureCandidateSource } from './erasure.view';

const reached = (checkpoint: GlobalPosition | undefined, position: GlobalPosition): boolean =>
  checkpoint !== undefined && comparePositions(checkpoint, position) >= 0;

/**
 * Waits for the projector that runs beside (the dispatcher's, or another replica's) to reach a
 * position, looking at its checkpoint every `everyMs`; throws after `timeoutMs` so that the caller
 * tries again later instead of selecting from read models that may miss deliveries.
 */
export function awaitProjector(
  readModels: Pick<ReadModelStore, 'loadCheckpoint'>,
  options: { readonly timeoutMs: number; readonly everyMs: number } = { timeoutMs: 30_000, everyMs: 100 },
): ReadModelsAt {
  return async (position) => {
    const deadline = Date.now() + options.timeoutMs;
    for (;;) {
      if (reached(await readModels.loadCheckpoint(READ_MODEL_PROJECTION), position)) return;
      if (Date.now() >= deadline)
        throw new Error(
          `the read models have not caught up with the erasure's request in ${options.timeoutMs} ms: is a projector running?`,
        );
      await sleep(options.everyMs);
    }
  };
}

/**
 * Brings the read models up to a position itself, as the live projector would (each batch a
 * compare-and-set on the projection's checkpoint, so a live projector beside it loses nothing and
 * writes nothing twice: whichever writes a stretch first wins it). For the command line, which may
 * run while the services are stopped.
 */
export function catchUpReadModels(store: EventStore, readModels: ReadModelStore, batchSize = 1000): ReadModelsAt {
  return async (position) => {
    for (;;) {
      const checkpoint = await readModels.loadCheckpoint(READ_MODEL_PROJECTION);
      if (reached(checkpoint, position)) return;
      const batch = await store.readAll({ after: checkpoint, limit: batchSize, filter: { streamPrefixes: PROJECTED_PREFIXES } });
      const last = batch.at(-1)?.position;
      // Past the last projected event up to the request, nothing is projected: the checkpoint moves there.
      const to = last === undefined || (batch.length < batchSize && comparePositions(last, position) < 0) ? position : last;
      await readModels.commit(
        READ_MODEL_PROJECTION,
        batch.flatMap((event) => toProjectionChanges(event)),
        checkpoint,
        to,
      );
    }
  };
}

/**
 * The read models as the source of an erasure's candidates (ReadModelStore.erasureCandidates,
 * which reads the kept rows only; `containsDigest` is not a read-model selector and is left out).
 */
export function erasureCandidatesOf(readModels: Pick<ReadModelStore, 'erasureCandidates'>): ErasureCandidateSource {
  return {
    erasureCandidates: ({ deliveryIds, routineId, triggerAccount, receivedAfter, receivedBefore }, after, limit) =>
      readModels.erasureCandidates({ deliveryIds, routineId, triggerAccount, receivedAfter, receivedBefore }, after, limit),
  };
}
