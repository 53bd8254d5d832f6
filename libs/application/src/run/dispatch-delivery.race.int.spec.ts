import { Streams } from '@wts/contracts';
import { SqliteEventStore, type RecordedEvent } from '@wts/event-store';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendDeliveries, appendRoutineWithWebhook, type DeliveryFixture } from '../../../../test/support/kafka-test-kit';
import { systemClock } from '../shared/system-runtime.adapter';
import { DispatchDeliveryUseCase, type DeliveryToDispatch, type DispatchOutcome } from './dispatch-delivery.usecase';
import { StoreDispatchWorker } from './store-dispatch.worker';

/**
 * Exactly one run per delivery under concurrency (guarantee 2): callers racing on one delivery —
 * several `execute()` at once, two dispatch workers on one store, an operator's replay while the
 * workers dispatch live — leave one RunCreated at revision 0 in `run-<run_id>`, and exactly one
 * caller hears `created`, every other `already_created`. A run append that does not insist on
 * "stream must not exist" (expected revision `any`, a fresh event id) fails every test here.
 */
describe('dispatching one delivery concurrently', () => {
  let dir: string;
  let store: SqliteEventStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wts-race-'));
    store = SqliteEventStore.open(join(dir, 'events.sqlite'));
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function input({ event }: DeliveryFixture): DeliveryToDispatch {
    return { delivery: event.data as DeliveryToDispatch['delivery'], position: event.position, eventId: event.id, traceparent: '' };
  }

  /** The run stream of each delivery holds exactly one RunCreated, at revision 0, for that delivery. */
  async function expectOneRunEach(deliveries: readonly DeliveryFixture[]): Promise<void> {
    for (const { deliveryId, runId } of deliveries) {
      const stream: readonly RecordedEvent[] = await store.readStream(Streams.run(runId));
      expect(stream.map((event) => [event.type, event.revision])).toEqual([['RunCreated', 0n]]);
      expect(stream[0].data).toMatchObject({ runId, deliveryId });
    }
  }

  /** Per delivery: one `created`, the rest `already_created`, nothing parked. */
  function expectOneCreatedEach(deliveries: readonly DeliveryFixture[], outcomes: readonly DispatchOutcome[], callersPerDelivery: number): void {
    for (const { runId } of deliveries) {
      const mine = outcomes.filter((outcome) => outcome.runId === runId);
      expect(mine).toHaveLength(callersPerDelivery);
      expect(mine.filter((outcome) => outcome.kind === 'created')).toHaveLength(1);
      expect(mine.filter((outcome) => outcome.kind === 'already_created')).toHaveLength(callersPerDelivery - 1);
    }
  }

  it('eight execute() calls at once on one delivery: one created, seven already_created, one RunCreated at revision 0', async () => {
    const hook = await appendRoutineWithWebhook(store);
    const [delivery] = await appendDeliveries(store, hook, 1);
    // Separate use-case instances, as separate dispatcher replicas would have.
    const callers = Array.from({ length: 8 }, () => new DispatchDeliveryUseCase(store, systemClock));
    const outcomes = await Promise.all(callers.map((dispatch) => dispatch.execute(input(delivery))));
    expectOneCreatedEach([delivery], outcomes, 8);
    await expectOneRunEach([delivery]);
  });

  it('a redelivery after the run exists is already_created and appends nothing', async () => {
    const hook = await appendRoutineWithWebhook(store);
    const [delivery] = await appendDeliveries(store, hook, 1);
    const dispatch = new DispatchDeliveryUseCase(store, systemClock);
    expect(await dispatch.execute(input(delivery))).toEqual({ kind: 'created', runId: delivery.runId });
    expect(await dispatch.execute(input(delivery))).toEqual({ kind: 'already_created', runId: delivery.runId });
    await expectOneRunEach([delivery]);
  });

  it('two dispatch workers on one store and a replay during live dispatch: each delivery one run, one created among three callers', async () => {
    const hook = await appendRoutineWithWebhook(store);
    const deliveries = await appendDeliveries(store, hook, 60);
    const outcomes: DispatchOutcome[] = [];
    const logger = { info: () => undefined, error: () => undefined };
    const options = { checkpointEveryMs: 0, retryDelayMs: 5, maxRetryDelayMs: 20, concurrency: 8 };
    const workers = [0, 1].map(
      () => new StoreDispatchWorker(store, store.checkpoints(), new DispatchDeliveryUseCase(store, systemClock), logger, options, (outcome) => outcomes.push(outcome)),
    );
    // The operator's replay (`replay --to dispatcher` hands each delivery to the use case) runs
    // while both workers follow the store, in the same order they read it.
    const replay = new DispatchDeliveryUseCase(store, systemClock);
    await Promise.all(workers.map((worker) => worker.start()));
    const replayed = await Promise.all(deliveries.map((delivery) => replay.execute(input(delivery))));
    outcomes.push(...replayed);
    const deadline = Date.now() + 30_000;
    while (outcomes.length < deliveries.length * 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await Promise.all(workers.map((worker) => worker.stop()));

    expectOneCreatedEach(deliveries, outcomes, 3);
    await expectOneRunEach(deliveries);
  }, 40_000);
});
