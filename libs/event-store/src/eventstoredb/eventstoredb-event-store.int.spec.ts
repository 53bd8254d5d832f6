import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { describeEventStoreContract, expectUnavailableOnceClosed } from '../contract';
import { InvalidAppendError } from '../event-store.errors';
import { EventStoreUnavailableError, type EventToAppend } from '../event-store.port';
import { EventStoreDbEventStore } from './eventstoredb-event-store.adapter';

const connectionString = process.env.EVENTSTORE_CONNECTION_STRING;

if (connectionString) {
  describeEventStoreContract('EventStoreDB', async () => {
    const opened: EventStoreDbEventStore[] = [];
    const open = (): EventStoreDbEventStore => {
      const store = EventStoreDbEventStore.connect(connectionString);
      opened.push(store);
      return store;
    };
    const store = open();
    return {
      store,
      checkpoints: store.checkpoints(),
      reopen: async () => {
        const reopened = open();
        return { store: reopened, checkpoints: reopened.checkpoints() };
      },
      // Tests write under a random stream prefix, so the server's data needs no cleanup.
      cleanup: async () => {
        await Promise.all(opened.map((each) => each.close()));
      },
    };
  });
} else {
  // jest's summary counts these as skipped: the contract suite did not run here.
  describe.skip('EventStore contract: EventStoreDB — SKIPPED: EVENTSTORE_CONNECTION_STRING is not set (no EventStoreDB server on this machine; see docs/eventstoredb.md)', () => {
    it('runs the EventStore contract suite against a real node', () => undefined);
  });
}

function newEvent(): EventToAppend {
  return { id: randomUUID(), type: 'Tested', data: { at: Date.now() }, metadata: {} };
}

/** How long an unreachable server may take to be reported (deadlines below: at most 1.5 s + 1 s grace). */
const REPORTED_WITHIN_MS = 4000;

async function expectUnavailableQuickly(what: string, attempt: () => Promise<unknown>): Promise<void> {
  const startedAt = Date.now();
  await expect(attempt()).rejects.toBeInstanceOf(EventStoreUnavailableError);
  const elapsed = Date.now() - startedAt;
  expect([what, elapsed < REPORTED_WITHIN_MS]).toEqual([what, true]);
}

describe('EventStoreDbEventStore against an unreachable server', () => {
  const stores: EventStoreDbEventStore[] = [];
  const connect = (url: string, operationTimeoutMs = 1500): EventStoreDbEventStore => {
    // A small retry budget: a subscription to a server that is down reports it within seconds.
    const store = EventStoreDbEventStore.connect(url, { operationTimeoutMs, resubscribe: { initialDelayMs: 50, maxAttempts: 2 } });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  it('reports a closed port as EventStoreUnavailableError on every operation, within seconds', async () => {
    const store = connect('esdb://127.0.0.1:1?tls=false');

    await expectUnavailableQuickly('ping', () => store.ping());
    await expectUnavailableQuickly('append', () => store.append('delivery-1', [newEvent()], 'no_stream'));
    await expectUnavailableQuickly('append again', () => store.append('delivery-1', [newEvent()], 'any'));
    await expectUnavailableQuickly('empty append', () => store.append('delivery-1', [], 'no_stream'));
    await expectUnavailableQuickly('readStream', () => store.readStream('delivery-1'));
    await expectUnavailableQuickly('readAll', () => store.readAll({ limit: 10 }));
    await expectUnavailableQuickly('readAll filtered', () => store.readAll({ limit: 10, filter: { streamPrefixes: ['delivery-'] } }));
    await expectUnavailableQuickly('headPosition', () => store.headPosition());
    await expectUnavailableQuickly('checkpoint load', () => store.checkpoints().load('dispatch'));
    await expectUnavailableQuickly('checkpoint save', () => store.checkpoints().save('dispatch', { commit: 1n, prepare: 1n }));
    const handler = jest.fn();
    await expectUnavailableQuickly(
      'subscribeToAll',
      () => store.subscribeToAll({ filter: { streamPrefixes: ['delivery-'] } }, handler).done,
    );
    await expectUnavailableQuickly('subscribeToAll unfiltered', () => store.subscribeToAll({}, handler).done);
    expect(handler).not.toHaveBeenCalled();
  });

  it('reports a server that accepts connections but never answers within the deadline', async () => {
    // A TCP listener that never speaks HTTP/2: the connection hangs, and the client gives streaming
    // reads and its server-features probe no gRPC deadline. The adapter's own guard must fire.
    const sockets = new Set<import('node:net').Socket>();
    const silent: Server = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const store = connect(`esdb://127.0.0.1:${port}?tls=false`, 500);

      await expectUnavailableQuickly('ping', () => store.ping());
      await expectUnavailableQuickly('append', () => store.append('delivery-1', [newEvent()], 'no_stream'));
      await expectUnavailableQuickly('readAll', () => store.readAll({ limit: 1 }));
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 15_000);

  it('still rejects malformed appends as usage errors, before any network call', async () => {
    const store = connect('esdb://127.0.0.1:1?tls=false');

    await expect(store.append('delivery-1', [{ ...newEvent(), id: 'nope' }], 'any')).rejects.toBeInstanceOf(InvalidAppendError);
    await expect(store.append('', [newEvent()], 'any')).rejects.toBeInstanceOf(InvalidAppendError);
    await expect(store.append('$delivery-1', [newEvent()], 'any')).rejects.toBeInstanceOf(InvalidAppendError);
    await expect(store.readAll({ limit: -1 })).rejects.toBeInstanceOf(RangeError);
  });

  it('answers trivially empty reads without the server', async () => {
    const store = connect('esdb://127.0.0.1:1?tls=false');

    await expect(store.readAll({ limit: 0 })).resolves.toEqual([]);
    await expect(store.readAll({ limit: 5, filter: { streamPrefixes: [] } })).resolves.toEqual([]);
    const idle = store.subscribeToAll({ filter: { streamPrefixes: [] } }, () => undefined);
    await expect(idle.stop()).resolves.toBeUndefined();
    await expect(idle.done).resolves.toBeUndefined();
  });

  it('surfaces a closed store as EventStoreUnavailableError; close() stops subscriptions and is idempotent', async () => {
    const store = connect('esdb://127.0.0.1:1?tls=false');
    const idle = store.subscribeToAll({ filter: { streamPrefixes: [] } }, () => undefined);

    await store.close();

    await expect(idle.done).resolves.toBeUndefined();
    await expect(store.close()).resolves.toBeUndefined();
    await expect(store.ping()).rejects.toThrow(/event store is closed/);
    await expectUnavailableOnceClosed(store);
  });

  it('refuses a malformed connection string when connecting', () => {
    expect(() => EventStoreDbEventStore.connect('http://localhost:2113')).toThrow(/invalid EventStoreDB connection string/);
  });
});
