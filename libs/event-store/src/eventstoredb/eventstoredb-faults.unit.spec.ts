/**
 * What the port's callers see when EventStoreDB misbehaves the ways production clusters do (issue
 * 12), against a fault-injecting double of the client (testing/fake-eventstoredb.client.ts).
 */
import { UnknownError, convertToCommandError } from '@eventstore/db-client';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { eventually } from '@wts/testing';
import { randomUUID } from 'node:crypto';
import { DuplicateEventIdError, EventStoreRejectedError, InvalidAppendError } from '../event-store.errors';
import { EventStoreUnavailableError, type EventToAppend, type RecordedEvent, type Subscription } from '../event-store.port';
import { EventStoreDbEventStore } from './eventstoredb-event-store.adapter';
import type { EventStoreDbEventStoreOptions } from './eventstoredb-event-store.options';
import { FakeEventStoreDb } from './testing/fake-eventstoredb.client';

function serviceError(code: status, details: string, entries: Record<string, string> = {}): ServiceError {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata });
}

/** As the client hands errors on: converted to its CommandError classes. */
function clientError(code: status, details: string, entries: Record<string, string> = {}): Error {
  return convertToCommandError(serviceError(code, details, entries));
}

function newEvent(type = 'Tested'): EventToAppend {
  return { id: randomUUID(), type, data: { type }, metadata: {} };
}

/** The state of a promise without waiting for it. */
async function settled(promise: Promise<unknown>): Promise<'pending' | 'resolved' | 'rejected'> {
  const pending = Symbol('pending');
  const outcome = await Promise.race([
    promise.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    Promise.resolve(pending),
  ]);
  return outcome === pending ? 'pending' : outcome;
}

describe('EventStoreDbEventStore under faults', () => {
  let server: FakeEventStoreDb;
  const open: EventStoreDbEventStore[] = [];
  const subscriptions: Subscription[] = [];
  const storeOn = (options: EventStoreDbEventStoreOptions = {}): EventStoreDbEventStore => {
    const store = EventStoreDbEventStore.fromClient(server.handle(), { resubscribe: { initialDelayMs: 1, maxDelayMs: 5 }, ...options });
    open.push(store);
    return store;
  };
  const follow = (store: EventStoreDbEventStore, filter?: { streamPrefixes: string[] }) => {
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribeToAll({ filter }, (event) => void seen.push(event));
    subscriptions.push(subscription);
    return { seen, subscription };
  };

  beforeEach(() => {
    server = new FakeEventStoreDb();
  });
  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((subscription) => subscription.stop()));
    await Promise.all(open.splice(0).map((store) => store.close()));
  });

  describe('1. subscriptions the server or the connection ends', () => {
    it('come back from the last delivered event after "Consumer too slow" (ABORTED): nothing lost, nothing twice, done still pending', async () => {
      const store = storeOn();
      await store.append('delivery-1', [newEvent(), newEvent()], 'no_stream');
      const { seen, subscription } = follow(store);
      await eventually(() => seen.length === 2, 3000, 'the first two events', 2);

      server.endSubscriptions(
        clientError(status.ABORTED, 'Operation timed out: Consumer too slow to handle event while live. Client resubscription required.'),
      );
      await store.append('delivery-1', [newEvent()], 1n);
      await eventually(() => seen.length === 3, 3000, 'the event after the drop', 2);

      expect(seen.map((event) => event.revision)).toEqual([0n, 1n, 2n]);
      expect(server.calls.subscribeToAll).toBe(2);
      const resumedFrom = server.received.filter((call) => call.method === 'subscribeToAll')[1].options as { fromPosition?: unknown };
      expect(resumedFrom.fromPosition).toEqual(seen[1].position);
      expect(await settled(subscription.done)).toBe('pending');
    });

    it.each([
      ['UNAVAILABLE (a reconnect of the client)', () => clientError(status.UNAVAILABLE, 'Connection dropped')],
      ['CANCELLED by the server', () => clientError(status.CANCELLED, 'Cancelled by server')],
      ['DEADLINE_EXCEEDED', () => clientError(status.DEADLINE_EXCEEDED, 'Deadline exceeded')],
      [
        'NOT_LEADER',
        () =>
          clientError(status.NOT_FOUND, 'Leader info available', {
            exception: 'not-leader',
            'leader-endpoint-host': '10.0.0.2',
            'leader-endpoint-port': '2113',
          }),
      ],
      ['INTERNAL (RST_STREAM)', () => clientError(status.INTERNAL, 'Received RST_STREAM with code 2')],
      ['a clean end of the call (server shutting down)', () => undefined],
    ])('come back after %s, filtered by prefix', async (_name, fault) => {
      const store = storeOn();
      const { seen, subscription } = follow(store, { streamPrefixes: ['delivery-'] });
      await store.append('delivery-1', [newEvent()], 'no_stream');
      await eventually(() => seen.length === 1, 3000, 'the first event', 2);

      server.endSubscriptions(fault());
      await store.append('other-1', [newEvent()], 'no_stream');
      await store.append('delivery-1', [newEvent()], 0n);
      await eventually(() => seen.length === 2, 3000, 'the event after the drop', 2);

      expect(seen.map((event) => `${event.streamId}@${event.revision}`)).toEqual(['delivery-1@0', 'delivery-1@1']);
      expect(await settled(subscription.done)).toBe('pending');
    });

    it('report a filter checkpoint as progress only after the events the server sent before it were handled', async () => {
      const store = storeOn();
      const written = [...server.writeEvents('delivery-1', 3), ...server.writeEvents('other-1', 5)];
      const handled: bigint[] = [];
      const early: string[] = [];
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const subscription = store.subscribeToAll(
        {
          filter: { streamPrefixes: ['delivery-'] },
          onProgress: (position) => {
            const unhandled = written.filter(
              (record) =>
                record.streamId === 'delivery-1' && record.position.commit <= position.commit && !handled.includes(record.position.commit),
            );
            if (unhandled.length > 0)
              early.push(`progress ${position.commit} before ${unhandled.map((record) => record.position.commit).join(',')}`);
          },
        },
        async (event) => {
          if (handled.length === 0) await gate;
          handled.push(event.position.commit);
        },
      );
      subscriptions.push(subscription);
      await new Promise((resolve) => setTimeout(resolve, 20)); // on purpose: room for an early checkpoint while the first event is held
      release();
      await eventually(() => handled.length === 3, 3000, 'the three events', 2);
      await new Promise((resolve) => setImmediate(resolve));

      expect(early).toEqual([]);
    });

    it('give up after the retry budget: done rejects with EventStoreUnavailableError and readiness fails until a subscription works again', async () => {
      const store = storeOn({ resubscribe: { initialDelayMs: 1, maxDelayMs: 2, maxAttempts: 3 } });
      const unavailable = () => clientError(status.UNAVAILABLE, 'No connection established');
      server.failNext('subscribeToAll', unavailable(), unavailable(), unavailable());
      await expect(store.ping()).resolves.toBeUndefined();

      const { subscription } = follow(store);

      await expect(subscription.done).rejects.toThrow(
        expect.objectContaining({ name: 'EventStoreUnavailableError', message: expect.stringMatching(/failed 3 times in a row/) }),
      );
      expect(server.calls.subscribeToAll).toBe(3);
      await expect(store.ping()).rejects.toThrow(/subscription gave up/);

      await store.append('delivery-1', [newEvent()], 'no_stream');
      const again = follow(store);
      await eventually(() => again.seen.length === 1, 3000, 'an event on a new subscription', 2);
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('reject at once, without resubscribing, when the handler throws or the server refuses the position for good', async () => {
      const store = storeOn();
      await store.append('delivery-1', [newEvent()], 'no_stream');
      const bug = new Error('handler bug');
      const failing = store.subscribeToAll({}, () => {
        throw bug;
      });
      await expect(failing.done).rejects.toBe(bug);
      expect(server.calls.subscribeToAll).toBe(1);

      server.failNext('subscribeToAll', clientError(status.OUT_OF_RANGE, 'Invalid position', { exception: 'invalid-position' }));
      const refused = store.subscribeToAll({ after: { commit: 7n, prepare: 3n } }, () => undefined);
      await expect(refused.done).rejects.toBeInstanceOf(EventStoreRejectedError);
      expect(server.calls.subscribeToAll).toBe(2);
    });
  });

  describe('2. leader changes', () => {
    it('sends appends and the reads that must see them to the leader', async () => {
      const store = storeOn();
      await store.append('webhook-1', [newEvent()], 'no_stream');
      await store.append('webhook-1', [newEvent()], 'any');
      await store.append('webhook-1', [], 0n);
      await store.readStream('webhook-1');
      await store.streamHeads(['webhook-1']);
      await store.checkpoints().save('relay', { commit: 5n, prepare: 5n });
      await store.checkpoints().load('relay');

      const leaderBound = server.received.filter((call) => call.method !== 'readAll' && call.method !== 'subscribeToAll');
      expect(leaderBound.map((call) => call.method)).toEqual(
        expect.arrayContaining(['appendToStream', 'readStream', 'getStreamMetadata', 'setStreamMetadata']),
      );
      expect(leaderBound.filter((call) => call.options.requiresLeader !== true)).toEqual([]);
    });

    it('drops the channel after INTERNAL or DATA_LOSS (6.2.1 keeps using it) and answers 503 for that call', async () => {
      const store = storeOn();
      server.failNext('appendToStream', clientError(status.INTERNAL, 'Received RST_STREAM with code 2'));
      await expect(store.append('delivery-1', [newEvent()], 'no_stream')).rejects.toBeInstanceOf(EventStoreUnavailableError);
      server.failNext('readStream', clientError(status.DATA_LOSS, 'stream corrupted'));
      await expect(store.readStream('delivery-1')).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await eventually(() => server.channel.reconnects === 2, 3000, 'two reconnects', 2);

      server.failNext('appendToStream', clientError(status.UNAVAILABLE, 'down'));
      await expect(store.append('delivery-1', [newEvent()], 'no_stream')).rejects.toBeInstanceOf(EventStoreUnavailableError);
      expect(server.channel.reconnects).toBe(2);
      await expect(store.append('delivery-1', [newEvent()], 'no_stream')).resolves.toMatchObject({ kind: 'appended' });
    });
  });

  describe('3. permanent refusals', () => {
    it('are never EventStoreUnavailableError (no 503 loop): a clear usage or rejection error instead', async () => {
      const store = storeOn();
      server.failNext(
        'appendToStream',
        clientError(status.INVALID_ARGUMENT, 'Event is too big', { exception: 'maximum-append-event-size-exceeded' }),
      );
      await expect(store.append('delivery-1', [newEvent()], 'no_stream')).rejects.toThrow(
        expect.objectContaining({ name: 'InvalidAppendError', message: expect.stringMatching(/MaxAppendEventSize/) }),
      );

      server.failNext('appendToStream', clientError(status.INVALID_ARGUMENT, 'Bad request', { exception: 'bad-request' }));
      await expect(store.append('delivery-1', [newEvent()], 'no_stream')).rejects.toThrow(
        expect.objectContaining({ name: 'EventStoreRejectedError', message: expect.stringMatching(/bad-request.*not retryable/) }),
      );

      // The batch-append path answers an error type 6.2.1 does not know like this.
      server.failNext('appendToStream', new UnknownError(undefined, 'Could not recognize Request is not valid'));
      await expect(store.append('delivery-1', [newEvent()], 'no_stream')).rejects.toBeInstanceOf(EventStoreRejectedError);

      server.failNext('readAll', clientError(status.OUT_OF_RANGE, 'Invalid position', { exception: 'invalid-position' }));
      await expect(store.readAll({ after: { commit: 7n, prepare: 3n }, limit: 5 })).rejects.toBeInstanceOf(EventStoreRejectedError);
    });
  });

  describe("4. idempotency with 'any' and 'stream_exists'", () => {
    it.each(['any', 'stream_exists'] as const)("recognises a retry with '%s' after the server forgot its recent ids", async (expected) => {
      const store = storeOn();
      await store.append('run-1', [newEvent()], 'no_stream');
      const events = [newEvent(), newEvent()];
      const original = await store.append('run-1', events, expected);
      server.remembersRecentIds = false;

      const retry = await store.append('run-1', events, expected);

      expect(retry).toEqual(original);
      expect(await store.readStream('run-1')).toHaveLength(3);
    });

    it('refuses a partial retry with DuplicateEventIdError, as the SQLite store does', async () => {
      const store = storeOn();
      const [a, b, c] = [newEvent(), newEvent(), newEvent()];
      await store.append('run-1', [a, b], 'any');

      await expect(store.append('run-1', [b, c], 'any')).rejects.toBeInstanceOf(DuplicateEventIdError);
      await expect(store.append('run-1', [c, a], 'stream_exists')).rejects.toBeInstanceOf(DuplicateEventIdError);
      expect(await store.readStream('run-1')).toHaveLength(2);
    });
  });

  describe('5. long reads', () => {
    it('reads a stream that takes longer than the operation timeout, as long as events keep coming', async () => {
      const store = storeOn({ operationTimeoutMs: 100 });
      server.writeEvents('catalog-1', 30);
      server.streamReadDelayMs = 50;

      const read = await store.readStream('catalog-1');

      expect(read).toHaveLength(30);
    }, 10_000);

    it('still gives up on a read that stalls for longer than the operation timeout', async () => {
      const store = storeOn({ operationTimeoutMs: 100 });
      server.writeEvents('catalog-1', 2);
      server.streamReadDelayMs = 1500;

      await expect(store.readStream('catalog-1')).rejects.toThrow(
        expect.objectContaining({ name: 'EventStoreUnavailableError', message: expect.stringMatching(/sent nothing for 1100 ms/) }),
      );
    }, 10_000);
  });

  describe('6. one client per process', () => {
    it('shares one client among the stores of a connection string and closes it with the last', async () => {
      const factory = server.factory();
      const first = EventStoreDbEventStore.connect('esdb://node-a:2113?tls=false', {}, factory);
      const second = EventStoreDbEventStore.connect('esdb://node-a:2113?tls=false', {}, factory);
      try {
        expect(() => EventStoreDbEventStore.connect('esdb://node-b:2113?tls=false', {}, factory)).toThrow(
          /cannot run two clients in one process/,
        );
        await first.append('delivery-1', [newEvent()], 'no_stream');
        await first.close();
        expect(server.channel).toMatchObject({ disposes: 0, closes: 0 });
        await expect(second.readStream('delivery-1')).resolves.toHaveLength(1);
      } finally {
        await second.close();
      }
      expect(factory.built).toEqual(['esdb://node-a:2113?tls=false']);
      expect(server.channel).toMatchObject({ disposes: 1, closes: 1 });

      const after = EventStoreDbEventStore.connect('esdb://node-b:2113?tls=false', {}, factory);
      await after.close();
      expect(factory.built).toHaveLength(2);
    });
  });

  describe('7. readAll with a prefix filter', () => {
    it.each([
      ['a server that reports caught-up (23.10+)', true],
      ['an older server (filter checkpoints only)', false],
    ])('filters on the server and ends at the head, on %s', async (_name, reportsCaughtUp) => {
      server.reportsCaughtUp = reportsCaughtUp;
      const store = storeOn({ readPageSize: 2 });
      for (let index = 0; index < 20; index += 1) await store.append(`delivery-${index}`, [newEvent()], 'no_stream');
      const wanted = [newEvent(), newEvent(), newEvent()];
      for (const [index, event] of wanted.entries()) await store.append(`webhook-${index}`, [event], 'no_stream');
      await store.append('delivery-x', [newEvent()], 'no_stream');

      const found = await store.readAll({ limit: 10, filter: { streamPrefixes: ['webhook-'] } });

      expect(found.map((event) => event.id)).toEqual(wanted.map((event) => event.id));
      const forwardReads = server.received.filter((call) => call.method === 'readAll' && call.options.direction !== 'backwards');
      expect(forwardReads).toEqual([]);
      const subscribed = server.received.filter((call) => call.method === 'subscribeToAll').map((call) => call.options.filter);
      expect(subscribed).toEqual([expect.objectContaining({ filterOn: 'streamName', prefixes: ['webhook-'] })]);
      expect(server.liveSubscriptions).toBe(0);
    });
  });

  describe('8. the smaller points', () => {
    it('refuses appends to checkpoint- streams, which readAll and subscriptions hide', async () => {
      const store = storeOn();
      await expect(store.append('checkpoint-mine', [newEvent()], 'any')).rejects.toBeInstanceOf(InvalidAppendError);
      expect(server.calls.appendToStream).toBe(0);
    });

    it('returns stream events that have no $all position (servers before 22.6) instead of failing the read', async () => {
      const store = storeOn();
      server.writeEvents('webhook-1', 3);
      server.omitStreamPositions = true;

      const read = await store.readStream('webhook-1');

      expect(read.map((event) => event.revision)).toEqual([0n, 1n, 2n]);
    });

    it('refuses tlsVerifyCert=false (ignored by 6.2.1) and points to tlsCAFile', () => {
      expect(() => EventStoreDbEventStore.connect('esdb://node-a:2113?tls=true&tlsVerifyCert=false', {}, server.factory())).toThrow(
        /tlsCAFile/,
      );
    });

    it('close() disposes the client and closes its gRPC channel', async () => {
      const store = storeOn();
      await store.append('delivery-1', [newEvent()], 'no_stream');
      await store.close();
      expect(server.channel).toMatchObject({ disposes: 1, closes: 1 });
    });

    it('ping() fails when $all cannot be read (readiness must cover what subscriptions need)', async () => {
      const store = storeOn();
      server.denyAllReads = true;
      await expect(store.ping()).rejects.toBeInstanceOf(EventStoreUnavailableError);
    });
  });
});
