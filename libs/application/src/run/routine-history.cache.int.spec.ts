import { Streams } from '@wts/contracts';
import type { GlobalPosition } from '@wts/event-store';
import { randomUUID } from 'node:crypto';
import { RecordingEventStore } from '../../../../test/support/recording-event-store';
import { useTempEventStore } from '../../../../test/support/temp-event-store.kit';
import { toAppend } from '../shared/event-envelope';
import { RoutineHistoryCache } from './routine-history.cache';

const routineId = 'rtn_CACHECACHECACHECACHE';
const T0 = '2026-01-01T00:00:00.000Z';
type AnyEvent = Parameters<typeof toAppend>[0][number];
const context = { correlationId: 'c', causationId: 'c', traceparent: '' };

describe('RoutineHistoryCache', () => {
  const temp = useTempEventStore('routine-cache');
  let store: RecordingEventStore;

  beforeEach(() => {
    store = new RecordingEventStore(temp.store);
  });

  /** A stand-in for a delivery: any event in another stream, whose position a delivery would have. */
  async function marker(n: number): Promise<GlobalPosition> {
    const result = await temp.store.append(
      `delivery-dlv_${n}`,
      toAppend([{ type: 'Marker', data: { n } } as unknown as AnyEvent], context, randomUUID),
      'no_stream',
    );
    if (result.kind !== 'appended') throw new Error('marker not appended');
    return result.position;
  }

  async function routineEvent(event: { type: string; data: object }): Promise<void> {
    await temp.store.append(Streams.routine(routineId), toAppend([event as unknown as AnyEvent], context, randomUUID), 'any');
  }

  const created = {
    type: 'RoutineCreated',
    data: { routineId, name: 'first', instructions: 'i', tools: [], mode: 'supervised', accountScope: [], createdAt: T0 },
  };
  const renamed = (name: string) => ({ type: 'RoutineUpdated', data: { routineId, changes: { name }, updatedAt: T0 } });
  const routineReads = () =>
    store.calls.filter((call) => call.call === 'readStream' && call.streamId === Streams.routine(routineId)).length;

  it('given a routine changed between deliveries, when asked at each delivery, then each sees the routine as it was there', async () => {
    const before = await marker(0);
    await routineEvent(created);
    const afterCreate = await marker(1);
    await routineEvent(renamed('second'));
    const afterRename = await marker(2);
    await routineEvent(renamed('third'));
    const cache = new RoutineHistoryCache(store);

    expect(await cache.at(routineId, before)).toBeNull();
    expect((await cache.at(routineId, afterCreate))?.name).toBe('first');
    expect((await cache.at(routineId, afterRename))?.name).toBe('second');
    // Asked again out of order, from what is already known.
    expect((await cache.at(routineId, afterCreate))?.name).toBe('first');
    expect(routineReads()).toBe(1);
  });

  it('given a backlog of deliveries, when they are asked about at once, then one read serves them all', async () => {
    await routineEvent(created);
    const positions: GlobalPosition[] = [];
    for (let n = 0; n < 200; n++) positions.push(await marker(n));
    const cache = new RoutineHistoryCache(store);

    const routines = await Promise.all(positions.map((position) => cache.at(routineId, position)));

    expect(routines.every((routine) => routine?.name === 'first')).toBe(true);
    expect(routineReads()).toBe(1);
  });

  it('given deliveries later than the last read, when asked, then the stream is read again from the next revision only', async () => {
    await routineEvent(created);
    const cache = new RoutineHistoryCache(store);
    expect((await cache.at(routineId, await marker(1)))?.name).toBe('first');

    await routineEvent(renamed('second'));
    const later = await marker(2);
    store.reset();
    expect((await cache.at(routineId, later))?.name).toBe('second');

    expect(store.calls.filter((call) => call.call === 'readStream')).toEqual([
      { call: 'readStream', streamId: Streams.routine(routineId), fromRevision: 1n },
    ]);
  });

  it('given a routine that never existed, when asked, then it is null (and the answer is remembered)', async () => {
    const position = await marker(1);
    const cache = new RoutineHistoryCache(store);
    expect(await cache.at(routineId, position)).toBeNull();
    expect(await cache.at(routineId, position)).toBeNull();
    expect(routineReads()).toBe(1);
  });
});
