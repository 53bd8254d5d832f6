import {
  AccessDeniedError,
  CancelledError,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NotLeaderError,
  StreamDeletedError,
  StreamNotFoundError,
  UnavailableError,
  WrongExpectedVersionError,
  convertToCommandError,
  type AllStreamResolvedEvent,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { WrongExpectedVersion } from '@eventstore/db-client/generated/shared_pb';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { Empty } from 'google-protobuf/google/protobuf/empty_pb';
import { InvalidAppendError } from '../event-store.errors';
import { EventStoreUnavailableError } from '../event-store.port';
import { checkpointStreamOf, parseCheckpoint } from './eventstoredb-checkpoint.store';
import { describeEventStoreDbConnection } from './eventstoredb-connection.format';
import { isUnavailableError, toStoreError } from './eventstoredb-error.mapping';
import {
  CHECKPOINT_STREAM_PREFIX,
  isHiddenEvent,
  matchesFilter,
  positionOf,
  readFrom,
  satisfiesExpected,
  toActualRevision,
  toClientPosition,
  toEventData,
  toExpectedRevision,
  toGlobalPosition,
  toRecordedEvent,
  toVisibleEvent,
} from './eventstoredb-event.mapping';

const U64_MAX = 18446744073709551615n;

/** A gRPC ServiceError as @grpc/grpc-js hands it to the client's callbacks. */
function serviceError(code: status, details: string, entries: Record<string, string> = {}): ServiceError {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata });
}

function resolvedEvent(overrides: Record<string, unknown> = {}, commitPosition?: bigint): AllStreamResolvedEvent {
  return {
    event: {
      streamId: 'delivery-1',
      id: '3f0c8d1e-2b4a-4c6d-8e9f-0a1b2c3d4e5f',
      isJson: true,
      revision: 2n,
      type: 'DeliveryAccepted',
      created: new Date('2024-05-01T10:00:00.000Z'),
      data: { ok: true },
      metadata: { correlationId: 'c-1' },
      position: { commit: 1200n, prepare: 1100n },
      ...overrides,
    },
    commitPosition,
  } as AllStreamResolvedEvent;
}

describe('EventStoreDB mapping: expected and actual revisions', () => {
  it('maps the port expectations to the client constants', () => {
    expect(toExpectedRevision('any')).toBe('any');
    expect(toExpectedRevision('no_stream')).toBe('no_stream');
    expect(toExpectedRevision('stream_exists')).toBe('stream_exists');
    expect(toExpectedRevision(0n)).toBe(0n);
    expect(toExpectedRevision(41n)).toBe(41n);
    // -1n ("no events yet") is a valid bigint expectation in the SQLite store.
    expect(toExpectedRevision(-1n)).toBe('no_stream');
  });

  it('refuses revisions below -1 as a usage error', () => {
    expect(() => toExpectedRevision(-2n)).toThrow(InvalidAppendError);
  });

  it('checks expectations like the SQLite store', () => {
    const table: [Parameters<typeof satisfiesExpected>[0], bigint, boolean][] = [
      ['any', -1n, true],
      ['any', 4n, true],
      ['no_stream', -1n, true],
      ['no_stream', 0n, false],
      ['stream_exists', -1n, false],
      ['stream_exists', 0n, true],
      [3n, 3n, true],
      [3n, 2n, false],
      [-1n, -1n, true],
    ];
    for (const [expected, current, result] of table)
      expect([expected, current, satisfiesExpected(expected, current)]).toEqual([expected, current, result]);
  });

  it('reads the actual revision of a WrongExpectedVersionError built like append.js (non-batch append)', () => {
    // append.js: new WrongExpectedVersionError(null, { streamName, current, expected })
    const missing = new WrongExpectedVersionError(undefined, {
      streamName: 'delivery-1',
      current: 'no_stream',
      expected: 'stream_exists',
    });
    const existing = new WrongExpectedVersionError(undefined, { streamName: 'delivery-1', current: 1n, expected: 'no_stream' });

    expect(missing.actualVersion).toBe('no_stream');
    expect(toActualRevision(missing.actualVersion)).toBe(-1n);
    expect(toActualRevision(existing.actualVersion)).toBe(1n);
    expect(existing.expectedVersion).toBe('no_stream');
  });

  it('reads the actual revision of a WrongExpectedVersionError built like batchAppend.js', () => {
    // batchAppend.js → unpackToCommandError → WrongExpectedVersionError.fromWrongExpectedVersion(details, name)
    const onExisting = new WrongExpectedVersion();
    onExisting.setCurrentStreamRevision('1');
    onExisting.setExpectedNoStream(new Empty());
    const onMissing = new WrongExpectedVersion();
    onMissing.setCurrentNoStream(new Empty());
    onMissing.setExpectedStreamPosition('0');

    const existing = WrongExpectedVersionError.fromWrongExpectedVersion(onExisting, 'delivery-1');
    const missing = WrongExpectedVersionError.fromWrongExpectedVersion(onMissing, 'delivery-2');

    expect(existing).toBeInstanceOf(WrongExpectedVersionError);
    expect(toActualRevision(existing.actualVersion)).toBe(1n);
    expect(existing.expectedVersion).toBe('no_stream');
    expect(toActualRevision(missing.actualVersion)).toBe(-1n);
    expect(missing.expectedVersion).toBe(0n);
  });

  it('reads the actual revision of a WrongExpectedVersionError converted from gRPC metadata', () => {
    // Older servers report it as an RpcException with metadata; convertToCommandError builds it.
    const converted = convertToCommandError(
      serviceError(status.FAILED_PRECONDITION, 'WrongExpectedVersion', {
        exception: 'wrong-expected-version',
        'stream-name': 'delivery-1',
        'expected-version': '0',
        'actual-version': '3',
      }),
    );
    const onMissing = convertToCommandError(
      serviceError(status.FAILED_PRECONDITION, 'WrongExpectedVersion', {
        exception: 'wrong-expected-version',
        'stream-name': 'delivery-2',
        'expected-version': '0',
      }),
    );

    expect(converted).toBeInstanceOf(WrongExpectedVersionError);
    expect(toActualRevision((converted as WrongExpectedVersionError).actualVersion)).toBe(3n);
    expect(toActualRevision((onMissing as WrongExpectedVersionError).actualVersion)).toBe(-1n);
  });
});

describe('EventStoreDB mapping: errors', () => {
  it('turns a raw gRPC UNAVAILABLE (the server-features probe before every append) into EventStoreUnavailableError', () => {
    const raw = serviceError(status.UNAVAILABLE, 'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:1');

    const mapped = toStoreError('append', raw);

    expect(mapped).toBeInstanceOf(EventStoreUnavailableError);
    expect((mapped as Error).message).toMatch(/^EventStoreDB append failed: .*UNAVAILABLE/);
    expect((mapped as Error).cause).toBe(raw);
  });

  it('treats the client availability errors as unavailability', () => {
    const notLeader = new NotLeaderError(
      serviceError(status.NOT_FOUND, 'Leader info available', {
        exception: 'not-leader',
        'leader-endpoint-host': '10.0.0.2',
        'leader-endpoint-port': '2113',
      }),
    );
    const errors = [
      new UnavailableError(serviceError(status.UNAVAILABLE, 'down')),
      new DeadlineExceededError(serviceError(status.DEADLINE_EXCEEDED, 'Deadline exceeded')),
      notLeader,
      new CancelledError(serviceError(status.CANCELLED, 'Cancelled by server')),
      new AccessDeniedError(),
      convertToCommandError(serviceError(status.DEADLINE_EXCEEDED, 'Deadline exceeded')),
      new Error('Failed to discover after 10 attempts.'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2113'), { code: 'ECONNREFUSED' }),
    ];
    for (const error of errors) {
      expect([error.constructor.name, isUnavailableError(error)]).toEqual([error.constructor.name, true]);
      expect(toStoreError('readAll', error)).toBeInstanceOf(EventStoreUnavailableError);
    }
    expect(notLeader.leader).toEqual({ address: '10.0.0.2', port: 2113 });
  });

  it('leaves caller bugs and other failures as they are', () => {
    const bug = new TypeError('x is not a function');
    const deleted = StreamDeletedError.fromStreamName('delivery-1');
    const notFound = new StreamNotFoundError(undefined, 'delivery-1');
    const own = new EventStoreUnavailableError('event store is closed (append)');

    expect(toStoreError('append', bug)).toBe(bug);
    expect(toStoreError('append', deleted)).toBe(deleted);
    expect(toStoreError('readStream', notFound)).toBe(notFound);
    expect(toStoreError('append', own)).toBe(own);
    expect(isUnavailableError(new WrongExpectedVersionError(undefined, { streamName: 's', current: 0n, expected: 'no_stream' }))).toBe(
      false,
    );
  });

  it('reports an append over the maximum size as a usage error', () => {
    const mapped = toStoreError('append', MaxAppendSizeExceededError.fromMaxAppendSize(1048576));
    expect(mapped).toBeInstanceOf(InvalidAppendError);
    expect((mapped as Error).message).toContain('1048576');
  });
});

describe('EventStoreDB mapping: events to append', () => {
  const id = 'A0B1C2D3-E4F5-4A6B-8C7D-9E0F1A2B3C4D';

  it('builds JSON events with lowercased ids, type, data and metadata', () => {
    const [event] = toEventData([{ id, type: 'DeliveryAccepted', data: { total: 12.5 }, metadata: { correlationId: 'c' } }], 1_048_576);
    expect(event).toEqual({
      id: id.toLowerCase(),
      contentType: 'application/json',
      type: 'DeliveryAccepted',
      data: { total: 12.5 },
      metadata: { correlationId: 'c' },
    });
  });

  it('rejects what the SQLite store rejects, as InvalidAppendError', () => {
    const ok = { id, type: 'T', data: {}, metadata: {} };
    const cases: unknown[][] = [
      [{ ...ok, id: 'not-a-uuid' }],
      [ok, { ...ok, id: id.toLowerCase() }],
      [{ ...ok, type: '' }],
      [{ ...ok, data: { n: 1n } }],
      [{ ...ok, metadata: null }],
    ];
    for (const events of cases) expect(() => toEventData(events as never, 1_048_576)).toThrow(InvalidAppendError);
  });

  it('refuses $-prefixed event types, which every read would hide', () => {
    expect(() => toEventData([{ id, type: '$metadata', data: {}, metadata: {} }], 1_048_576)).toThrow(/reserved/);
  });

  it("refuses an event above the server's maximum append size before sending it, naming both sizes", () => {
    const event = { id, type: 'T', data: { text: 'x'.repeat(1000) }, metadata: { m: 1 } };
    expect(() => toEventData([event], 1000)).toThrow(InvalidAppendError);
    expect(() => toEventData([event], 1000)).toThrow(/1018 bytes, above the store's limit of 1000 bytes/);
    expect(toEventData([event], 1018)).toHaveLength(1);
  });
});

describe('EventStoreDB mapping: positions and recorded events', () => {
  it('converts positions both ways, keeping commit and prepare', () => {
    expect(toGlobalPosition({ commit: 10n, prepare: 7n })).toEqual({ commit: 10n, prepare: 7n });
    expect(toClientPosition({ commit: 10n, prepare: 7n })).toEqual({ commit: 10n, prepare: 7n });
  });

  it('starts reads and subscriptions at $all start for no position and for START_POSITION', () => {
    expect(readFrom(undefined)).toBe('start');
    expect(readFrom({ commit: -1n, prepare: -1n })).toBe('start');
    expect(readFrom({ commit: 0n, prepare: 0n })).toEqual({ commit: 0n, prepare: 0n });
    expect(readFrom({ commit: 512n, prepare: 500n })).toEqual({ commit: 512n, prepare: 500n });
  });

  it("takes the record's position, else the resolved commit position, and ignores the u64-max marker", () => {
    expect(positionOf(resolvedEvent())).toEqual({ commit: 1200n, prepare: 1100n });
    expect(positionOf(resolvedEvent({ position: undefined }, 900n))).toEqual({ commit: 900n, prepare: 900n });
    expect(positionOf(resolvedEvent({ position: { commit: U64_MAX, prepare: U64_MAX } }, 900n))).toEqual({
      commit: 900n,
      prepare: 900n,
    });
    expect(positionOf(resolvedEvent({ position: undefined }))).toBeUndefined();
  });

  it('maps every RecordedEvent field', () => {
    expect(toRecordedEvent(resolvedEvent())).toEqual({
      id: '3f0c8d1e-2b4a-4c6d-8e9f-0a1b2c3d4e5f',
      streamId: 'delivery-1',
      revision: 2n,
      position: { commit: 1200n, prepare: 1100n },
      type: 'DeliveryAccepted',
      data: { ok: true },
      metadata: { correlationId: 'c-1' },
      createdAt: new Date('2024-05-01T10:00:00.000Z'),
    });
  });

  it('defaults missing metadata to {} and decodes JSON written as bytes', () => {
    const bytes = Uint8Array.from(Buffer.from('{"a":1}', 'utf8'));
    const event = toRecordedEvent(resolvedEvent({ isJson: false, data: bytes, metadata: undefined }));
    expect(event).toMatchObject({ data: { a: 1 }, metadata: {} });
  });

  it('keeps an event the server gives no position (servers before 22.6 on stream reads), with START_POSITION', () => {
    expect(toRecordedEvent(resolvedEvent({ position: undefined }))?.position).toEqual({ commit: -1n, prepare: -1n });
  });

  it('hides system streams, system event types, links and checkpoint streams', () => {
    expect(isHiddenEvent('$stats-127.0.0.1:2113', 'StatsCollected')).toBe(true);
    expect(isHiddenEvent('$$delivery-1', '$metadata')).toBe(true);
    expect(isHiddenEvent('delivery-1', '$>')).toBe(true);
    expect(isHiddenEvent(checkpointStreamOf('store-dispatch'), 'CheckpointSaved')).toBe(true);
    expect(isHiddenEvent('delivery-1', 'DeliveryAccepted')).toBe(false);
    expect(isHiddenEvent('run-checkpoint-1', 'RunCreated')).toBe(false);

    expect(toVisibleEvent(resolvedEvent({ streamId: '$$delivery-1', type: '$metadata' }))).toBeUndefined();
    expect(toVisibleEvent(resolvedEvent())).toMatchObject({ streamId: 'delivery-1' });
    expect(toVisibleEvent({ commitPosition: 5n })).toBeUndefined();
  });

  it('filters by literal stream-name prefixes', () => {
    expect(matchesFilter('delivery-1', undefined)).toBe(true);
    expect(matchesFilter('delivery-1', {})).toBe(true);
    expect(matchesFilter('delivery-1', { streamPrefixes: [] })).toBe(false);
    expect(matchesFilter('deliveryx-1', { streamPrefixes: ['delivery-'] })).toBe(false);
    expect(matchesFilter('run-1', { streamPrefixes: ['delivery-', 'run-'] })).toBe(true);
    expect(matchesFilter('a%c', { streamPrefixes: ['a%'] })).toBe(true);
    expect(matchesFilter('abc', { streamPrefixes: ['a%'] })).toBe(false);
    expect(matchesFilter('a.c', { streamPrefixes: ['a.'] })).toBe(true);
    expect(matchesFilter('abc', { streamPrefixes: ['a.'] })).toBe(false);
  });

  it('maps a stream read result (ResolvedEvent without commitPosition) using the record position', () => {
    const fromStream: ResolvedEvent = resolvedEvent() as unknown as ResolvedEvent;
    expect(toRecordedEvent(fromStream)?.position).toEqual({ commit: 1200n, prepare: 1100n });
  });
});

describe('EventStoreDB mapping: checkpoints and connection strings', () => {
  it('stores checkpoints in non-system streams', () => {
    expect(checkpointStreamOf('store-dispatch')).toBe(`${CHECKPOINT_STREAM_PREFIX}store-dispatch`);
    expect(checkpointStreamOf('store-dispatch').startsWith('$')).toBe(false);
  });

  it('parses saved checkpoint data and rejects anything else', () => {
    expect(parseCheckpoint('a', { commit: '1234', prepare: '1200' })).toEqual({ commit: 1234n, prepare: 1200n });
    expect(parseCheckpoint('a', { commit: '-1', prepare: '-1' })).toEqual({ commit: -1n, prepare: -1n });
    expect(() => parseCheckpoint('a', { commit: 1234, prepare: '1' })).toThrow(/checkpoint a .* malformed/);
    expect(() => parseCheckpoint('a', null)).toThrow(/malformed/);
  });

  it('redacts credentials from connection strings', () => {
    expect(describeEventStoreDbConnection('esdb://admin:changeit@localhost:2113?tls=false')).toBe('esdb://***@localhost:2113?tls=false');
    expect(describeEventStoreDbConnection('esdb+discover://u:p@a:2113,b:2113?nodePreference=leader')).toBe(
      'esdb+discover://***@a:2113,b:2113?nodePreference=leader',
    );
    expect(describeEventStoreDbConnection('esdb://localhost:2113?tls=false')).toBe('esdb://localhost:2113?tls=false');
  });

  it.each([
    ['esdb://admin:pa/ss@localhost:2113?tls=false', 'pa/ss'],
    ['esdb://admin:pa?ss@localhost:2113?tls=false', 'pa?ss'],
    ['esdb://admin:p@ss@localhost:2113?tls=false', 'ss'],
    ['esdb://admin:a/b?c@d@localhost:2113', 'a/b?c@d'],
  ])('never shows a password holding / ? or @ (%s)', (connection, password) => {
    const described = describeEventStoreDbConnection(connection);
    expect(described).not.toContain(password);
    expect(described).toMatch(/^esdb:\/\/\*\*\*@localhost:2113/);
  });
});
