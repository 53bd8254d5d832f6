import { Streams } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';
import { eventually } from '@wts/testing';
import { randomUUID } from 'node:crypto';
import { appendDeliveries, appendRoutineWithWebhook, shortId, type DeliveryFixture } from '../../../../test/support/kafka-test-kit';
import { useTempEventStore } from '../../../../test/support/temp-event-store.kit';
import { systemClock } from '../shared/system-runtime.adapter';
import { DispatchDeliveryUseCase, type DeliveryToDispatch, type DispatchOutcome } from './dispatch-delivery.usecase';
import { ParkDispatchUseCase } from './park-dispatch.usecase';
import { StoreDispatchWorker } from './store-dispatch.worker';

/**
 * Exactly one run per delivery under concurrency (guarantee 2): callers racing on one delivery —
 * several `execute()` at once, two dispatch workers on one store, an operator's replay while the
 * workers dispatch live — leave one RunCreated at revision 0 in `run-<run_id>`, and exactly one
 * caller hears `created`, every other `already_created`. A run append that does not insist on
 * "stream must not exist" (expected revision `any`, a fresh event id) fails every test here.
 */
describe('dispatching one delivery concurrently', () => {
  const temp = useTempEventStore('race');

  const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  function input({ event }: DeliveryFixture): DeliveryToDispatch {
    return {
      delivery: event.data as DeliveryToDispatch['delivery'],
      position: event.position,
      eventId: event.id,
      traceparent: TRACEPARENT,
    };
  }

  /** The run stream of each delivery holds exactly one RunCreated, at revision 0, for that delivery. */
  async function expectOneRunEach(deliveries: readonly DeliveryFixture[]): Promise<void> {
    for (const { deliveryId, runId } of deliveries) {
      const stream: readonly RecordedEvent[] = await temp.store.readStream(Streams.run(runId));
      expect(stream.map((event) => [event.type, event.revision])).toEqual([['RunCreated', 0n]]);
      expect(stream[0].data).toMatchObject({ runId, deliveryId });
    }
  }

  /** Per delivery: one `created`, the rest `already_created`, nothing parked. */
  function expectOneCreatedEach(
    deliveries: readonly DeliveryFixture[],
    outcomes: readonly DispatchOutcome[],
    callersPerDelivery: number,
  ): void {
    for (const { runId } of deliveries) {
      const mine = outcomes.filter((outcome) => outcome.runId === runId);
      expect(mine).toHaveLength(callersPerDelivery);
      expect(mine.filter((outcome) => outcome.kind === 'created')).toHaveLength(1);
      expect(mine.filter((outcome) => outcome.kind === 'already_created')).toHaveLength(callersPerDelivery - 1);
    }
  }

  it('eight execute() calls at once on one delivery: one created, seven already_created, one RunCreated at revision 0', async () => {
    const hook = await appendRoutineWithWebhook(temp.store);
    const [delivery] = await appendDeliveries(temp.store, hook, 1);
    // Separate use-case instances, as separate dispatcher replicas would have.
    const callers = Array.from(
      { length: 8 },
      () => new DispatchDeliveryUseCase(temp.store, systemClock, new ParkDispatchUseCase(temp.store, systemClock)),
    );
    const outcomes = await Promise.all(callers.map((dispatch) => dispatch.execute(input(delivery))));
    expectOneCreatedEach([delivery], outcomes, 8);
    await expectOneRunEach([delivery]);
  });

  it('a redelivery after the run exists is already_created and appends nothing', async () => {
    const hook = await appendRoutineWithWebhook(temp.store);
    const [delivery] = await appendDeliveries(temp.store, hook, 1);
    const dispatch = new DispatchDeliveryUseCase(temp.store, systemClock, new ParkDispatchUseCase(temp.store, systemClock));
    expect(await dispatch.execute(input(delivery))).toEqual({ kind: 'created', runId: delivery.runId });
    expect(await dispatch.execute(input(delivery))).toEqual({ kind: 'already_created', runId: delivery.runId });
    await expectOneRunEach([delivery]);
  });

  it('the run carries the causation of its delivery: correlation = delivery id, causation = the DeliveryAccepted event, its traceparent', async () => {
    const hook = await appendRoutineWithWebhook(temp.store);
    const [delivery] = await appendDeliveries(temp.store, hook, 1);
    await new DispatchDeliveryUseCase(temp.store, systemClock, new ParkDispatchUseCase(temp.store, systemClock)).execute(input(delivery));
    const [run] = await temp.store.readStream(Streams.run(delivery.runId));
    expect(run.metadata).toMatchObject({
      correlationId: delivery.deliveryId,
      causationId: delivery.event.id,
      traceparent: TRACEPARENT,
      eventId: run.id,
    });
  });

  it('a delivery that can never become a run is parked with its error, once per source event; if its run exists after all, it is already_created', async () => {
    const hook = await appendRoutineWithWebhook(temp.store);
    const ghost = { ...hook, routineId: shortId('rtn') }; // a routine that was never created
    const [delivery] = await appendDeliveries(temp.store, ghost, 1);
    const dispatch = new DispatchDeliveryUseCase(temp.store, systemClock, new ParkDispatchUseCase(temp.store, systemClock));
    const outcome = await dispatch.execute(input(delivery));
    expect(outcome).toMatchObject({ kind: 'parked', runId: delivery.runId });
    const error = (outcome as { error: string }).error;
    expect(error).toMatch(/\S+: \S+/);
    const parked = await temp.store.readStream(Streams.parked(delivery.event.id));
    expect(parked.map((event) => event.type)).toEqual(['DispatchParked']);
    expect(parked[0].data).toEqual({
      sourceEventId: delivery.event.id,
      sourceStream: Streams.delivery(delivery.deliveryId),
      sourceType: 'DeliveryAccepted',
      deliveryId: delivery.deliveryId,
      routineId: ghost.routineId,
      error,
      parkedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(parked[0].metadata).toMatchObject({
      correlationId: delivery.deliveryId,
      causationId: delivery.event.id,
      traceparent: TRACEPARENT,
    });
    expect(await temp.store.readStream(Streams.run(delivery.runId))).toEqual([]);

    // A run an earlier build made for it is still its run: reported, not parked again.
    await temp.store.append(
      Streams.run(delivery.runId),
      [{ id: randomUUID(), type: 'RunCreated', data: { runId: delivery.runId }, metadata: {} }],
      'no_stream',
    );
    expect(await dispatch.execute(input(delivery))).toEqual({ kind: 'already_created', runId: delivery.runId });
    expect(await temp.store.readStream(Streams.parked(delivery.event.id))).toHaveLength(1);
  });

  it('two dispatch workers on one store and a replay during live dispatch: each delivery one run, one created among three callers', async () => {
    const hook = await appendRoutineWithWebhook(temp.store);
    const deliveries = await appendDeliveries(temp.store, hook, 60);
    const outcomes: DispatchOutcome[] = [];
    const logger = { info: () => undefined, error: () => undefined };
    const options = { checkpointEveryMs: 0, retryDelayMs: 5, maxRetryDelayMs: 20, concurrency: 8 };
    const workers = [0, 1].map(
      () =>
        new StoreDispatchWorker({
          store: temp.store,
          checkpoints: temp.store.checkpoints(),
          dispatch: new DispatchDeliveryUseCase(temp.store, systemClock, new ParkDispatchUseCase(temp.store, systemClock)),
          park: new ParkDispatchUseCase(temp.store, systemClock),
          logger,
          options,
          onDispatched: (outcome) => outcomes.push(outcome),
        }),
    );
    // The operator's replay (`replay --to dispatcher` hands each delivery to the use case) runs
    // while both workers follow the store, in the same order they read it.
    const replay = new DispatchDeliveryUseCase(temp.store, systemClock, new ParkDispatchUseCase(temp.store, systemClock));
    await Promise.all(workers.map((worker) => worker.start()));
    const replayed = await Promise.all(deliveries.map((delivery) => replay.execute(input(delivery))));
    outcomes.push(...replayed);
    await eventually(() => outcomes.length >= deliveries.length * 3, 30_000, 'an outcome per delivery and worker', 10).finally(() =>
      Promise.all(workers.map((worker) => worker.stop())),
    );

    expectOneCreatedEach(deliveries, outcomes, 3);
    await expectOneRunEach(deliveries);
  }, 40_000);
});
