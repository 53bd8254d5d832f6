import { serializeEvents } from './append.validation';
import { InvalidAppendError } from './event-store.errors';
import type { EventToAppend } from './event-store.port';

const ID = '6F9619FF-8B86-D011-B42D-00C04FC964FF';

function event(overrides: Partial<EventToAppend> = {}): EventToAppend {
  return { id: ID, type: 'Something', data: { a: 1 }, metadata: { b: 'x' }, ...overrides };
}

describe('serializeEvents: the append validation every adapter shares', () => {
  it('given valid events, when serialized, then ids are lower-cased and data and metadata are JSON text', () => {
    expect(serializeEvents([event()], 1000)).toEqual([{ id: ID.toLowerCase(), type: 'Something', data: '{"a":1}', metadata: '{"b":"x"}' }]);
  });

  it('given data that cannot be serialized, when serialized, then InvalidAppendError names the event and the field', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => serializeEvents([event({ data: cyclic })], 1000)).toThrow(InvalidAppendError);
    expect(() => serializeEvents([event({ data: cyclic })], 1000)).toThrow(`event ${ID.toLowerCase()} data is not JSON-serializable`);
    expect(() => serializeEvents([event({ metadata: (() => undefined) as unknown as object })], 1000)).toThrow(
      new InvalidAppendError(`event ${ID.toLowerCase()} metadata is not JSON-serializable`),
    );
  });

  it('given an event above the limit, when serialized, then InvalidAppendError names its size and the limit', () => {
    expect(() => serializeEvents([event()], 10)).toThrow(
      new InvalidAppendError(`event ${ID.toLowerCase()} is 16 bytes, above the store's limit of 10 bytes per event`),
    );
  });

  it("given the adapter's own check, when serialized, then it sees each event with its validated id, after the id checks and before the JSON", () => {
    const seen: string[] = [];
    const refused = new InvalidAppendError('refused by the adapter');
    const check = (candidate: EventToAppend, id: string): void => {
      seen.push(`${candidate.type}:${id}`);
      if (candidate.type === 'Refused') throw refused;
    };
    expect(() => serializeEvents([event({ id: 'not-a-uuid' })], 1000, check)).toThrow(InvalidAppendError);
    expect(seen).toEqual([]);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => serializeEvents([event({ type: 'Refused', data: cyclic })], 1000, check)).toThrow(refused);
    expect(seen).toEqual([`Refused:${ID.toLowerCase()}`]);
  });
});
