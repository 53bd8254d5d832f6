import { Streams, type ErasureRequested } from '@wts/contracts';
import { foldErasure, reject, timeOrderedId, validateErasureSelectors, type ErasureSelectors, type Rejection } from '@wts/domain';
import type { EventStore, PayloadAttachment } from '@wts/event-store';
import type { AdminCall } from '../access/admin-call';
import { causedBy, toAppend } from '../shared/event-envelope';
import type { Clock, RandomSource } from '../shared/runtime.port';
import { childTraceparent } from '../shared/trace-context';
import { readErasure, toErasureView, type ErasureView, type KafkaCopiesExpiry } from './erasure.view';

/** How long an erasure's own search string is kept at most: long past any erasure's run, short if one is abandoned. */
export const ERASURE_SEARCH_RETENTION_MS = 7 * 86_400_000;

export interface ErasureServiceDependencies {
  readonly store: EventStore;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** With Kafka: by when the topics' copies are gone after an erasure ends (see KafkaCopiesExpiry). */
  readonly kafkaCopiesExpireBy?: KafkaCopiesExpiry;
}

/**
 * Erasure on request: records what is to be erased and answers how far it got. The work itself is
 * the ErasureJob's (the dispatcher's runner, or the command line in process), which resumes from the
 * stream after a crash. The search string (`contains`) is personal data: the event keeps only its
 * digest, and the string itself is stored as a payload under the erasure's id — in the same append,
 * so a recorded erasure always has it — to be removed with the same machinery when the job ends.
 */
export class ErasureService {
  constructor(private readonly deps: ErasureServiceDependencies) {}

  async request(selectors: ErasureSelectors, call: AdminCall): Promise<ErasureView | Rejection> {
    const validation = validateErasureSelectors(selectors);
    if (validation.kind === 'invalid') return reject('validation_failed', validation.problems.join('; '));
    const { selection, needle } = validation.criteria;
    if (selection.routineId !== undefined) {
      const heads = await this.deps.store.streamHeads([Streams.routine(selection.routineId)]);
      if ((heads.get(Streams.routine(selection.routineId)) ?? -1n) < 0n)
        return reject('validation_failed', `routine_id names no routine: ${selection.routineId}`);
    }
    const now = this.deps.clock.now();
    const erasureId = timeOrderedId('erasure', now.getTime(), this.deps.random.bytes(16));
    const requested: ErasureRequested = {
      type: 'ErasureRequested',
      data: { erasureId, selection, requestedAt: now.toISOString(), requestedBy: call.actor.display },
    };
    const context = causedBy(erasureId, erasureId, childTraceparent(call.traceparent, this.deps.random), call.actor);
    // Lower-cased: what is searched for, and all the job needs (the original case is not kept anywhere).
    const search: PayloadAttachment | undefined =
      needle === undefined
        ? undefined
        : {
            key: erasureId,
            webhookId: '',
            format: 'text',
            text: needle,
            receivedAt: now.getTime(),
            expiresAt: now.getTime() + ERASURE_SEARCH_RETENTION_MS,
          };
    const result = await this.deps.store.append(
      Streams.erasure(erasureId),
      toAppend([requested], context, () => this.deps.random.uuid()),
      'no_stream',
      search === undefined ? undefined : { payload: search },
    );
    if (result.kind === 'conflict') throw new Error(`erasure id ${erasureId} was taken: the random source repeats itself`);
    // The state as the request alone makes it: the domain's fold, not a copy of it.
    const state = foldErasure([requested]);
    if (!state) throw new Error(`erasure ${erasureId}: its request folds to no state`);
    return toErasureView(state, this.deps.kafkaCopiesExpireBy);
  }

  /** erasure_not_found for an id that is not an era_ id or names no erasure. */
  async get(erasureId: string): Promise<ErasureView | Rejection> {
    const stored = await readErasure(this.deps.store, erasureId);
    if (!stored) return reject('erasure_not_found', 'no erasure with this id');
    return toErasureView(stored.state, this.deps.kafkaCopiesExpireBy);
  }
}
