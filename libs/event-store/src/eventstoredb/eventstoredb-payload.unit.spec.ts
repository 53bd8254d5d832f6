/**
 * The payload store on the in-memory stand-in for the client (FakeEventStoreDb honours binary
 * events, $maxAge, $tb and the fact that $all keeps what stream reads no longer show). The logical
 * behaviour only: what leaves the disk is a scavenge's business (docs/eventstoredb.md).
 */
import { UnavailableError } from '@eventstore/db-client';
import { randomUUID } from 'node:crypto';
import { EventStoreUnavailableError, type EventToAppend, type RecordedEvent } from '../event-store.port';
import { InvalidAppendError } from '../event-store.errors';
import type { PayloadAttachment } from '../payload-store.port';
import { EventStoreDbEventStore } from './eventstoredb-event-store.adapter';
import { PAYLOAD_EVENT_TYPE, payloadStreamOf } from './eventstoredb-payload.records';
import { FakeEventStoreDb } from './testing/fake-eventstoredb.client';

const HOUR = 3_600_000;

function event(type = 'DeliveryAccepted'): EventToAppend {
  return { id: randomUUID(), type, data: { type }, metadata: {} };
}

function attachment(key: string, text: string, overrides: Partial<PayloadAttachment> = {}): PayloadAttachment {
  return { key, webhookId: 'wh_1', format: 'json', text, receivedAt: Date.now(), expiresAt: Date.now() + HOUR, ...overrides };
}

describe('EventStoreDbPayloadStore on an in-memory stand-in for the client', () => {
  let server: FakeEventStoreDb;
  let store: EventStoreDbEventStore;
  const deliver = (key: string, text: string, overrides: Partial<PayloadAttachment> = {}, events = [event()]) =>
    store.append(`delivery-${key}`, events, 'no_stream', { payload: attachment(key, text, overrides) });

  beforeEach(() => {
    server = new FakeEventStoreDb();
    store = EventStoreDbEventStore.fromClient(server.handle(), { readPageSize: 2 });
  });
  afterEach(() => store.close());

  it('given payloads appended with their events, when read back, then the text is exactly as written', async () => {
    const texts = ['{"n":12345678901234567890,"x":1.10}', 'caf\u00e9 \u{1F600} \u00fc\u00df', 'x'.repeat(256 * 1024)];
    for (const [index, text] of texts.entries()) expect((await deliver(`d${index}`, text)).kind).toBe('appended');
    const read = await store.payloads().get(['d0', 'd1', 'd2', 'missing']);
    expect(texts.map((_, index) => read.get(`d${index}`))).toEqual(
      texts.map((text) => expect.objectContaining({ state: 'kept', format: 'json', text })),
    );
    expect(read.has('missing')).toBe(false);
  });

  it('given a payload, when appended, then it is one binary event written before the events, with $maxAge until its expiry', async () => {
    const expiresAt = Date.now() + 2 * HOUR;
    await deliver('d1', '{"a":1}', { expiresAt });
    const [body, ...after] = server.log;
    expect(body).toMatchObject({ streamId: payloadStreamOf('d1'), type: PAYLOAD_EVENT_TYPE, isJson: false });
    // The metadata and the events go concurrently, after the body.
    expect(after.map((record) => record.streamId).sort()).toEqual([`$$${payloadStreamOf('d1')}`, 'delivery-d1']);
    expect(server.data.metadataOf(payloadStreamOf('d1'))).toMatchObject({ maxAge: 7200, expiresAt });
  });

  it('given an append retried with the same payload, when it runs again, then one payload is stored and the retry is answered', async () => {
    const events = [event()];
    const first = await deliver('d1', 'same', {}, events);
    const retry = await deliver('d1', 'same', {}, events);
    expect(retry).toEqual(first);
    expect(server.log.filter((record) => record.streamId === payloadStreamOf('d1'))).toHaveLength(1);
  });

  it('given another body already under the key and its delivery recorded, when appended, then a conflict and the first body stays', async () => {
    await deliver('d1', 'first');
    const second = await deliver('d1', 'second');
    expect(second).toMatchObject({ kind: 'conflict', streamId: 'delivery-d1', actualRevision: 0n });
    expect((await store.payloads().get(['d1'])).get('d1')).toMatchObject({ state: 'kept', text: 'first' });
  });

  it('given another body under the key that no event records yet, when appended, then unavailable and nothing of it is written', async () => {
    await store.append('erasure-d1', [event()], 'no_stream', { payload: attachment('d1', 'orphan') });
    await expect(deliver('d1', 'second')).rejects.toBeInstanceOf(EventStoreUnavailableError);
    expect(await store.readStream('delivery-d1')).toEqual([]);
  });

  it('given the events conflict, when appended, then the payload written first is left to its $maxAge (an orphan)', async () => {
    await store.append('delivery-d1', [event()], 'no_stream');
    const outcome = await deliver('d1', 'late');
    expect(outcome.kind).toBe('conflict');
    expect(server.data.metadataOf(payloadStreamOf('d1'))?.maxAge).toBeGreaterThan(0);
    server.data.clock = () => Date.now() + 2 * HOUR;
    expect((await store.payloads().get(['d1'])).get('d1')).toMatchObject({ state: 'removed', reason: 'expired', erasureId: null });
  });

  it('given the payload append fails, when appending, then the events are not appended and the error is EventStoreUnavailableError', async () => {
    server.failNext('appendToStream', new UnavailableError(undefined, '14 UNAVAILABLE: No connection established'));
    await expect(deliver('d1', 'body')).rejects.toBeInstanceOf(EventStoreUnavailableError);
    expect(await store.readStream('delivery-d1')).toEqual([]);
    expect(await store.payloads().get(['d1'])).toEqual(new Map());
  });

  it('given payload streams, when reading $all, subscribing or appending to them, then they are hidden and reserved', async () => {
    await deliver('d1', 'secret');
    const all = await store.readAll({ limit: 100 });
    expect(all.map((e) => e.streamId)).toEqual(['delivery-d1']);
    expect(await store.readAll({ limit: 100, filter: { streamPrefixes: ['payload-'] } })).toEqual([]);
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribeToAll({ onCaughtUp: () => void subscription.stop() }, (e) => void seen.push(e));
    await subscription.done;
    expect(seen.map((e) => e.streamId)).toEqual(['delivery-d1']);
    await expect(store.append(payloadStreamOf('d2'), [event()], 'no_stream')).rejects.toBeInstanceOf(InvalidAppendError);
  });

  it('given a kept payload, when removed twice, then it counts once and reads as removed with reason, time and erasure', async () => {
    await deliver('d1', 'body');
    await deliver('d2', 'other');
    const removal = { reason: 'erased' as const, erasureId: 'era_1', at: 1_700_000_000_000 };
    expect(await store.payloads().remove(['d1', 'd1', 'missing'], removal)).toBe(1);
    expect(await store.payloads().remove(['d1'], { ...removal, erasureId: 'era_2' })).toBe(0);
    const read = await store.payloads().get(['d1', 'd2']);
    expect(read.get('d1')).toEqual({ state: 'removed', reason: 'erased', removedAt: removal.at, erasureId: 'era_1' });
    expect(read.get('d2')).toMatchObject({ state: 'kept' });
    const metadata = server.data.metadataOf(payloadStreamOf('d1'));
    expect(metadata).toMatchObject({ truncateBefore: 1 });
    expect(metadata?.maxAge).toBeUndefined();
    // The marker outlives the payload's expiry: still removed as erased, never kept again.
    server.data.clock = () => Date.now() + 10 * HOUR;
    expect((await store.payloads().get(['d1'])).get('d1')).toMatchObject({ reason: 'erased' });
    expect(await deliver('d1', 'body')).toMatchObject({ kind: 'conflict' });
    expect((await store.payloads().get(['d1'])).get('d1')).toMatchObject({ state: 'removed' });
  });

  it('given a marker whose $tb was never set, when removed again, then it is completed but not counted', async () => {
    await deliver('d1', 'body');
    server.failNext('setStreamMetadata', new UnavailableError(undefined, '14 UNAVAILABLE'));
    await expect(store.payloads().remove(['d1'], { reason: 'expired', erasureId: null, at: 1 })).rejects.toBeInstanceOf(
      EventStoreUnavailableError,
    );
    expect((await store.payloads().get(['d1'])).get('d1')).toMatchObject({ state: 'removed', reason: 'expired' });
    expect(await store.payloads().remove(['d1'], { reason: 'expired', erasureId: null, at: 2 })).toBe(0);
    expect(server.data.metadataOf(payloadStreamOf('d1'))).toMatchObject({ truncateBefore: 1 });
  });

  it('given payloads, when scanned a window at a time, then case-insensitive matches of kept payloads only, resuming at the cursor', async () => {
    await deliver('a', 'Hello World');
    await deliver('b', 'nothing here');
    await deliver('c', 'say HELLO');
    await deliver('d', 'hello again');
    await store.payloads().remove(['d'], { reason: 'erased', erasureId: 'era_1', at: 1 });
    const first = await store.payloads().scan('hello', { limit: 2 });
    expect(first).toMatchObject({ matches: ['a'], scanned: 2 });
    expect(first.cursor).toEqual(expect.any(String));
    const second = await store.payloads().scan('hello', { limit: 2, cursor: first.cursor });
    expect(second).toMatchObject({ matches: ['c'], scanned: 2 });
    const last = await store.payloads().scan('hello', { limit: 2, cursor: second.cursor });
    expect(last).toEqual({ matches: [], scanned: 0 });
  });

  it('answers no due payloads and an incomplete reclaim: EventStoreDB expires by $maxAge and frees space by a scavenge', async () => {
    await deliver('d1', 'body', { expiresAt: Date.now() - 1 });
    expect(await store.payloads().due(Date.now(), 10)).toEqual([]);
    expect(await store.payloads().reclaim(Date.now())).toEqual({ complete: false, released: 0 });
  });
});
