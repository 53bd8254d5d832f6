/**
 * The adapter's own logic (paging, skipping, value mapping, subscription lifecycle, guards) against
 * an in-memory stand-in for @eventstore/db-client. The stand-in follows the behaviour read from the
 * client's sources and EventStoreDB's documentation (readAll forwards from a position is inclusive,
 * a catch-up subscription from a position is exclusive, an idempotent retry answers without a
 * position, WrongExpectedVersionError as append.js builds it, StreamNotFoundError as a stream
 * error). It is no substitute for the contract suite against a real server (the .int.spec).
 */
import { eventually } from '@wts/testing';
import { randomUUID } from 'node:crypto';
import { appendContract } from '../contract/append.suite';
import { checkpointContract } from '../contract/checkpoint.suite';
import { newNamespace, type ContractContext, type EventStoreContractSubject } from '../contract/contract.fixtures';
import { readContract } from '../contract/read.suite';
import { subscriptionContract } from '../contract/subscription.suite';
import { EventStoreUnavailableError, type EventToAppend, type RecordedEvent } from '../event-store.port';
import { CHECKPOINT_EVENT_TYPE, checkpointStreamOf } from './eventstoredb-checkpoint.store';
import { EventStoreDbEventStore } from './eventstoredb-event-store.adapter';
import { FakeEventStoreDb } from './testing/fake-eventstoredb.client';

function newEvent(type = 'Tested'): EventToAppend {
  return { id: randomUUID(), type, data: { type }, metadata: { correlationId: randomUUID() } };
}

describe('EventStoreDbEventStore on an in-memory stand-in for the client', () => {
  let server: FakeEventStoreDb;
  const open: EventStoreDbEventStore[] = [];
  const connect = (options?: Parameters<typeof EventStoreDbEventStore.fromClient>[1]): EventStoreDbEventStore => {
    const store = EventStoreDbEventStore.fromClient(server.handle(), options);
    open.push(store);
    return store;
  };

  beforeEach(() => {
    server = new FakeEventStoreDb();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((store) => store.close()));
  });

  describe('the append, read, subscription and checkpoint contracts', () => {
    let current: ContractContext | undefined;
    const context = (): ContractContext => {
      if (!current) throw new Error('contract context used outside a test');
      return current;
    };
    beforeEach(() => {
      // Small pages so the contracts also exercise paging; system events interleaved everywhere.
      const store = connect({ readPageSize: 2 });
      server.writeSystemEvent();
      const subject: EventStoreContractSubject = {
        store,
        checkpoints: store.checkpoints(),
        reopen: async () => {
          const reopened = connect({ readPageSize: 2 });
          return { store: reopened, checkpoints: reopened.checkpoints() };
        },
        cleanup: async () => undefined,
      };
      current = { subject, ns: newNamespace() };
    });
    afterEach(() => {
      current = undefined;
    });

    appendContract(context, false);
    readContract(context);
    subscriptionContract(context);
    checkpointContract(context);
  });

  describe('append', () => {
    it('returns appended values with the position of the last event', async () => {
      const store = connect();
      const result = await store.append('s-1', [newEvent(), newEvent()], 'no_stream');
      const read = await store.readStream('s-1');

      expect(result).toEqual({ kind: 'appended', nextRevision: 1n, position: read[1].position });
      expect(read.map((event) => event.revision)).toEqual([0n, 1n]);
    });

    it('returns conflicts as values, -1n for a missing stream', async () => {
      const store = connect();
      await store.append('existing', [newEvent(), newEvent()], 'no_stream');
      const cases: [string, 'no_stream' | 'stream_exists' | bigint, bigint][] = [
        ['existing', 'no_stream', 1n],
        ['missing', 'stream_exists', -1n],
        ['existing', 0n, 1n],
        ['missing', 0n, -1n],
      ];
      for (const [streamId, expected, actualRevision] of cases) {
        expect(await store.append(streamId, [newEvent()], expected)).toEqual({ kind: 'conflict', streamId, expected, actualRevision });
      }
    });

    it("answers an idempotent retry (no position from the server) with the original event's position", async () => {
      const store = connect();
      const events = [newEvent(), newEvent()];
      const original = await store.append('s-1', events, 'no_stream');
      await store.append('s-1', [newEvent()], 1n);

      expect(await store.append('s-1', events, 'no_stream')).toEqual(original);
      expect(await store.append('s-1', events, 'any')).toEqual(original);
      expect(await store.readStream('s-1')).toHaveLength(3);
    });

    it('checks only the expectation for an empty append, without writing', async () => {
      const store = connect();
      expect(await store.append('s-1', [], 'no_stream')).toEqual({
        kind: 'appended',
        nextRevision: -1n,
        position: { commit: -1n, prepare: -1n },
      });
      await store.append('s-1', [newEvent()], 'no_stream');
      const [only] = await store.readStream('s-1');

      expect(await store.append('s-1', [], 0n)).toEqual({ kind: 'appended', nextRevision: 0n, position: only.position });
      expect(await store.append('s-1', [], 'no_stream')).toMatchObject({ kind: 'conflict', actualRevision: 0n });
      expect(server.calls.appendToStream).toBe(1);
    });

    it('gives up on a server that never answers, as EventStoreUnavailableError', async () => {
      const store = connect({ operationTimeoutMs: 50 });
      server.hangAppends = true;
      await expect(store.append('s-1', [newEvent()], 'any')).rejects.toThrow(
        expect.objectContaining({ name: 'EventStoreUnavailableError', message: expect.stringMatching(/did not answer within 1050 ms/) }),
      );
    });
  });

  describe('reads', () => {
    it('reads a missing stream as []', async () => {
      expect(await connect().readStream('nothing')).toEqual([]);
    });

    it('hides system and checkpoint events from readAll and headPosition', async () => {
      const store = connect({ readPageSize: 2 });
      server.writeSystemEvent();
      await store.append('s-1', [newEvent()], 'no_stream');
      server.writeSystemEvent();
      await store.checkpoints().save('projector', { commit: 5n, prepare: 5n });
      for (let index = 0; index < 40; index += 1) server.writeSystemEvent();
      const [only] = await store.readStream('s-1');

      const all = await store.readAll({ limit: 100 });

      expect(all.map((event) => event.id)).toEqual([only.id]);
      expect(await store.headPosition()).toEqual(only.position);
      expect(server.log.some((record) => record.streamId === checkpointStreamOf('projector'))).toBe(true);
    });

    it('has no head while only system events exist', async () => {
      const store = connect();
      expect(await store.headPosition()).toBeUndefined();
      for (let index = 0; index < 70; index += 1) server.writeSystemEvent();
      expect(await store.headPosition()).toBeUndefined();
    });

    it('pages through $all until `limit` matching events were found', async () => {
      const store = connect({ readPageSize: 3 });
      const wanted: string[] = [];
      for (let index = 0; index < 10; index += 1) {
        await store.append(`other-${index}`, [newEvent()], 'no_stream');
        const event = newEvent();
        wanted.push(event.id);
        await store.append(`delivery-${index}`, [event], 'no_stream');
      }

      const first = await store.readAll({ limit: 4, filter: { streamPrefixes: ['delivery-'] } });
      const rest = await store.readAll({ after: first[3].position, limit: 100, filter: { streamPrefixes: ['delivery-'] } });

      expect(first.map((event) => event.id)).toEqual(wanted.slice(0, 4));
      expect(rest.map((event) => event.id)).toEqual(wanted.slice(4));
    });
  });

  describe('subscriptions', () => {
    it('asks the server to filter by prefix and to start after the position', async () => {
      const store = connect();
      await store.append('delivery-1', [newEvent()], 'no_stream');
      const [first] = await store.readStream('delivery-1');
      const second = newEvent();
      await store.append('delivery-1', [second], 0n);
      const seen: RecordedEvent[] = [];

      const subscription = store.subscribeToAll({ after: first.position, filter: { streamPrefixes: ['delivery-'] } }, (event) => {
        seen.push(event);
      });
      await eventually(() => seen.length >= 1, 3000, 'the first event', 2);
      await subscription.stop();

      expect(seen.map((event) => event.id)).toEqual([second.id]);
    });

    it('treats START_POSITION as "from the beginning" (unsigned server positions cannot express -1)', async () => {
      const store = connect();
      const event = newEvent();
      await store.append('delivery-1', [event], 'no_stream');
      const seen: RecordedEvent[] = [];

      const subscription = store.subscribeToAll({ after: { commit: -1n, prepare: -1n } }, (recorded) => void seen.push(recorded));
      await eventually(() => seen.length >= 1, 3000, 'the first event', 2);
      await subscription.stop();

      expect(seen.map((recorded) => recorded.id)).toEqual([event.id]);
      expect((await store.readAll({ after: { commit: -1n, prepare: -1n }, limit: 10 })).map((recorded) => recorded.id)).toEqual([event.id]);
    });

    it('never delivers checkpoint events, even to an unfiltered subscription', async () => {
      const store = connect();
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({}, (event) => void seen.push(event));
      await store.checkpoints().save('projector', { commit: 1n, prepare: 1n });
      server.writeSystemEvent();
      await store.append('delivery-1', [newEvent()], 'no_stream');
      await eventually(() => seen.length >= 1, 3000, 'the first event', 2);
      await new Promise((resolve) => setTimeout(resolve, 20)); // on purpose: room for a checkpoint event to be delivered, which must not be
      await subscription.stop();

      expect(seen.map((event) => event.streamId)).toEqual(['delivery-1']);
    });

    it('rejects done with EventStoreUnavailableError when the connection stays lost past the retry budget', async () => {
      const store = connect({ resubscribe: { initialDelayMs: 1, maxAttempts: 3 } });
      const subscription = store.subscribeToAll({}, () => undefined);
      await eventually(() => server.liveSubscriptions === 1, 3000, 'the subscription to open', 1);

      server.goDown();

      await expect(subscription.done).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(subscription.stop()).resolves.toBeUndefined();
    });
  });

  describe('checkpoints', () => {
    it('caps each checkpoint stream at one event, setting the metadata once', async () => {
      const store = connect();
      const checkpoints = store.checkpoints();
      for (let commit = 1n; commit <= 3n; commit += 1n) await checkpoints.save('projector', { commit, prepare: commit });
      const again = connect().checkpoints();
      await again.save('projector', { commit: 4n, prepare: 4n });

      expect(server.calls.setStreamMetadata).toBe(1);
      expect(await again.load('projector')).toEqual({ commit: 4n, prepare: 4n });
      const events = server.log.filter((record) => record.streamId === checkpointStreamOf('projector'));
      expect(events.map((record) => record.type)).toEqual(Array(4).fill(CHECKPOINT_EVENT_TYPE));
    });
  });
});
