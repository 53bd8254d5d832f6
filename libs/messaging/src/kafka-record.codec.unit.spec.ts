import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

/**
 * kafkajs's records as this repository installs it: patches/kafkajs+2.2.4.patch makes its Encoder
 * allocate pooled, unzeroed buffers and write varints in place (a record with the relays' fourteen
 * headers cost 73 µs to encode, 13 µs patched), and its record decoder fill one headers object
 * instead of copying it once per header (7.4 → 4.4 µs). Every byte it writes and every header it
 * reads must stay what the published library wrote and read: the expected digests below were taken
 * from kafkajs 2.2.4 unpatched, and its header fold is the oracle of the decoder.
 */

interface Encoded {
  readonly buffer: Buffer;
}
/** A header's value as the producer takes it: several values of one name go as one header each. */
type Header = string | Buffer | (string | Buffer)[];
interface RecordInput {
  readonly offsetDelta: number;
  readonly timestampDelta: number;
  readonly key: string | Buffer | null;
  readonly value: string | Buffer | null;
  readonly headers: Record<string, Header>;
}
// kafkajs's own internal modules (no types of their own): what its producer calls per request.
const load = createRequire(__filename);
const { RecordBatch } = load('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (batch: { firstTimestamp: number; maxTimestamp: number; lastOffsetDelta: number; records: Encoded[] }) => Promise<Encoded>;
};
const Record = load('kafkajs/src/protocol/recordBatch/record/v0') as (record: RecordInput) => Encoded;
const Encoder = load('kafkajs/src/protocol/encoder') as new () => Encoded & {
  readonly buf: Buffer;
  writeVarInt(value: number): Encoded;
  writeUVarInt(value: number): Encoded;
};

interface DecodedRecord {
  readonly headers: Record<string, Buffer | Buffer[]>;
}
const Decoder = load('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => { readVarInt(): number; readBytes(length: number): Buffer };
const RecordDecoder = load('kafkajs/src/protocol/recordBatch/record/v0/decoder') as (
  decoder: InstanceType<typeof Decoder>,
  batchContext: { firstOffset: string; firstTimestamp: string; magicByte: number },
) => DecodedRecord;

/** kafkajs 2.2.4's own header fold, as published: a fresh object per header (the patch fills one in place). */
function publishedHeaderFold(pairs: readonly { key: string; value: Buffer }[]): Record<string, Buffer | Buffer[]> {
  return pairs.reduce<Record<string, Buffer | Buffer[]>>(
    (obj, { key, value }) => ({
      ...obj,
      [key]: obj[key] === undefined ? value : Array.isArray(obj[key]) ? obj[key].concat([value]) : [obj[key], value],
    }),
    {},
  );
}

/** Encodes one record and reads it back as the consumer does. */
function roundTrip(headers: Record<string, Header>): DecodedRecord {
  const bytes = Record({ offsetDelta: 0, timestampDelta: 0, key: 'k', value: 'v', headers }).buffer;
  const decoder = new Decoder(bytes);
  return RecordDecoder(new Decoder(decoder.readBytes(decoder.readVarInt())), { firstOffset: '0', firstTimestamp: '0', magicByte: 2 });
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** A fixed pseudo-random sequence (a 31-bit LCG): the same cases on every run and machine. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

function randomText(next: () => number): string {
  const pieces = ['é', '漢', '\u{1F600}', '\ud800', ' ', '"', '\\'];
  let text = '';
  const length = Math.floor(next() * 300);
  for (let i = 0; i < length; i++) {
    const pick = next();
    text += pick < 0.8 ? String.fromCharCode(32 + Math.floor(next() * 90)) : pieces[Math.floor(next() * pieces.length)];
  }
  return text;
}

function randomRecord(next: () => number, index: number): RecordInput {
  const bytesOrText = (): string | Buffer | null => {
    const pick = next();
    return pick < 0.1 ? null : pick < 0.3 ? Buffer.from(randomText(next)) : randomText(next);
  };
  const headers: RecordInput['headers'] = {};
  const count = Math.floor(next() * 16);
  for (let h = 0; h < count; h++) {
    headers[`h${h}${randomText(next).slice(0, 5)}`] =
      next() < 0.2 ? [randomText(next), Buffer.from(randomText(next))] : randomText(next) || 'x';
  }
  return { offsetDelta: index, timestampDelta: Math.floor(next() * 1e12), key: bytesOrText(), value: bytesOrText(), headers };
}

describe('kafkajs records (patched for speed): the bytes and headers of the published library', () => {
  it("is the patched encoder: its buffers are slices of Node's pool, not zero-filled allocations of their own", () => {
    expect(new Encoder().buf.buffer.byteLength).toBe(Buffer.poolSize);
  });

  it.each([
    [0, '00'],
    [-1, '01'],
    [1, '02'],
    [63, '7e'],
    [-64, '7f'],
    [64, '8001'],
    [300, 'd804'],
    [2 ** 31 - 1, 'feffffff0f'],
    [-(2 ** 31), 'ffffffff0f'],
  ])('writes %d as the zig-zag varint %s', (value, hex) => {
    expect(new Encoder().writeVarInt(value).buffer.toString('hex')).toBe(hex);
  });

  it('writes the unsigned varints of lengths (LEB128) byte by byte, up to five bytes', () => {
    expect(new Encoder().writeUVarInt(0).buffer.toString('hex')).toBe('00');
    expect(new Encoder().writeUVarInt(127).buffer.toString('hex')).toBe('7f');
    expect(new Encoder().writeUVarInt(128).buffer.toString('hex')).toBe('8001');
    expect(new Encoder().writeUVarInt(0xffffffff).buffer.toString('hex')).toBe('ffffffff0f');
  });

  it('encodes a record shaped as the relays send them (a key, a JSON value, fourteen headers) as kafkajs 2.2.4 did', async () => {
    const headers = {
      'event-type': 'DeliveryAccepted',
      'event-id': '0f8b1c7e-5d2a-4e8b-9a61-3c1d2e4f5a6b',
      'schema-version': '2',
      'stream-id': 'delivery-dlv_01JDZ3V7Q8X9Y0Z1A2B3C4D5E6',
      'stream-revision': '0',
      position: '42/42',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      ce_specversion: '1.0',
      ce_id: '0f8b1c7e-5d2a-4e8b-9a61-3c1d2e4f5a6b',
      ce_source: '/webhook-trigger-service/webhooks.events.v1',
      ce_type: 'com.webhook-trigger-service.delivery.accepted',
      ce_time: '2026-11-29T08:30:00.000Z',
      'content-type': 'application/json',
      ce_subject: 'rtn_01JDZ3V7Q8X9Y0Z1A2B3C4D5E6',
    };
    const value = JSON.stringify({
      deliveryId: 'dlv_01JDZ3V7Q8X9Y0Z1A2B3C4D5E6',
      data: { alert: 'disk full', note: 'é漢\u{1F600}'.repeat(20) },
    });
    const record = Record({ offsetDelta: 0, timestampDelta: 0, key: 'whk_01JDZ3V7Q8X9Y0Z1A2B3C4D5E6', value, headers });
    const batch = await RecordBatch({
      firstTimestamp: 1_796_000_000_000,
      maxTimestamp: 1_796_000_000_000,
      lastOffsetDelta: 0,
      records: [record],
    });
    expect({ bytes: batch.buffer.length, sha256: sha256(batch.buffer) }).toEqual({
      bytes: 883,
      sha256: 'dab4713d3fde788f0be6187fa6d27acd6aff11e2846a8588733e4d6758b0001c',
    });
  });

  it('encodes 400 seeded batches of any keys, values and headers (text, bytes, null, arrays, any code point) as kafkajs 2.2.4 did', async () => {
    const next = sequence(7);
    const digest = createHash('sha256');
    for (let b = 0; b < 400; b++) {
      const records = Array.from({ length: 1 + Math.floor(next() * 5) }, (_, index) => Record(randomRecord(next, index)));
      const batch = await RecordBatch({
        firstTimestamp: 1_700_000_000_000 + b,
        maxTimestamp: 1_700_000_000_000 + b,
        lastOffsetDelta: records.length - 1,
        records,
      });
      digest.update(batch.buffer);
    }
    expect(digest.digest('hex')).toBe('71f961404d58023c1db5bf9dce503137e8d01271170425ccb2b914c379f7c7c6');
  });

  it("reads a record's headers back as the published fold did: same names, order and values, repeated names as arrays, `__proto__` an own header", () => {
    const next = sequence(11);
    const names = ['event-type', 'ce_id', 'toString', 'constructor', '__proto__', 'x', 'é漢'];
    for (let c = 0; c < 300; c++) {
      const headers: Record<string, Header> = {};
      const count = Math.floor(next() * 12);
      for (let h = 0; h < count; h++) {
        const name = names[Math.floor(next() * names.length)] + (next() < 0.5 ? '' : String(h));
        const value: Header = next() < 0.3 ? [randomText(next), Buffer.from(randomText(next)), randomText(next)] : randomText(next);
        Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
      }
      const pairs = Object.keys(headers).flatMap((key) => {
        const value = headers[key];
        return (Array.isArray(value) ? value : [value]).map((one) => ({ key, value: Buffer.from(one) }));
      });
      expect(Object.entries(roundTrip(headers).headers)).toEqual(Object.entries(publishedHeaderFold(pairs)));
    }
  });

  it('reads a name sent several times (kafkajs sends an array as one header each) as one array, in order', () => {
    const decoded = roundTrip({ traceparent: ['a', 'b', 'c'], 'event-type': 'RunCreated' });
    expect(Object.entries(decoded.headers)).toEqual([
      ['traceparent', [Buffer.from('a'), Buffer.from('b'), Buffer.from('c')]],
      ['event-type', Buffer.from('RunCreated')],
    ]);
    expect(Object.getPrototypeOf(roundTrip({ ['__proto__']: 'x' }).headers)).toBe(Object.prototype);
  });
});
