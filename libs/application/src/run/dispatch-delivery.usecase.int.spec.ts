import { Streams } from '@wts/contracts';
import { SqliteEventStore, type EventStore } from '@wts/event-store';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendDeliveries, appendRoutineWithWebhook, shortId, type DeliveryFixture } from '../../../../test/support/kafka-test-kit';
import { systemClock } from '../shared/system-runtime.adapter';
import { DispatchDeliveryUseCase, type DeliveryToDispatch } from './dispatch-delivery.usecase';
import { ParkDispatchUseCase } from './park-dispatch.usecase';

/**
 * The run decider decides on the run stream's real state without slowing the fast path: a first
 * dispatch reads no run stream (the "stream must not exist" append proves it was empty); a
 * conflict, or a rejection, reads and folds the run stream and the decider decides on it.
 */
describe('DispatchDeliveryUseCase: deciding on the run stream', () => {
  let dir: string;
  let store: SqliteEventStore;
  let runReads: string[];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wts-dispatch-'));
    store = SqliteEventStore.open(join(dir, 'events.sqlite'));
    runReads = [];
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function input({ event }: DeliveryFixture): DeliveryToDispatch {
    return { delivery: event.data as DeliveryToDispatch['delivery'], position: event.position, eventId: event.id, traceparent: '' };
  }

  /** The use case on `on`, parking there too. */
  function dispatchOn(on: EventStore): DispatchDeliveryUseCase {
    return new DispatchDeliveryUseCase(on, systemClock, new ParkDispatchUseCase(on, systemClock));
  }

  /** The store, noting every read of a run stream. */
  function watched(readStream: EventStore['readStream'] = (streamId, options) => store.readStream(streamId, options)): EventStore {
    return Object.assign(Object.create(store) as EventStore, {
      readStream: ((streamId, options) => {
        if (streamId.startsWith('run-')) runReads.push(streamId);
        return readStream(streamId, options);
      }) satisfies EventStore['readStream'],
    });
  }

  it('given no run, when dispatched, then created without reading the run stream first', async () => {
    const [delivery] = await appendDeliveries(store, await appendRoutineWithWebhook(store), 1);
    expect(await dispatchOn(watched()).execute(input(delivery))).toEqual({
      kind: 'created',
      runId: delivery.runId,
    });
    expect(runReads).toEqual([]);
  });

  it('given the run exists, when dispatched again, then the append conflicts, the run stream is folded and the decider finds the run: already_created, nothing appended', async () => {
    const [delivery] = await appendDeliveries(store, await appendRoutineWithWebhook(store), 1);
    await new DispatchDeliveryUseCase(store, systemClock, new ParkDispatchUseCase(store, systemClock)).execute(input(delivery));
    expect(await dispatchOn(watched()).execute(input(delivery))).toEqual({
      kind: 'already_created',
      runId: delivery.runId,
    });
    expect(runReads).toEqual([Streams.run(delivery.runId)]);
    expect((await store.readStream(Streams.run(delivery.runId))).map((event) => event.type)).toEqual(['RunCreated']);
  });

  it('given a run an earlier build made, when the delivery is now rejected, then the folded run decides: already_created, not parked', async () => {
    const hook = await appendRoutineWithWebhook(store);
    const [delivery] = await appendDeliveries(store, { ...hook, routineId: shortId('rtn') }, 1);
    await store.append(
      Streams.run(delivery.runId),
      [{ id: randomUUID(), type: 'RunCreated', data: { runId: delivery.runId }, metadata: {} }],
      'no_stream',
    );
    expect(await dispatchOn(watched()).execute(input(delivery))).toEqual({
      kind: 'already_created',
      runId: delivery.runId,
    });
    expect(runReads).toEqual([Streams.run(delivery.runId)]);
    expect(await store.readStream(Streams.parked(delivery.event.id))).toEqual([]);
  });

  it('given the append conflicts yet the run stream reads empty, then it fails (retried by the caller) rather than claim a run', async () => {
    const [delivery] = await appendDeliveries(store, await appendRoutineWithWebhook(store), 1);
    await new DispatchDeliveryUseCase(store, systemClock, new ParkDispatchUseCase(store, systemClock)).execute(input(delivery));
    const blind = watched((streamId, options) => (streamId.startsWith('run-') ? Promise.resolve([]) : store.readStream(streamId, options)));
    await expect(dispatchOn(blind).execute(input(delivery))).rejects.toThrow(`${Streams.run(delivery.runId)} exists but holds no run`);
  });
});
