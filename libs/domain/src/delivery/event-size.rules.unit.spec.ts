import { decideRun } from '../run/run.decider';
import { runInitialMessage } from '../run/run-message.framer';
import type { RoutineState } from '../catalog/routine.decider';
import { decideDelivery, type AcceptDelivery } from './delivery.decider';
import {
  RUN_EVENT_BYTES_PER_BODY_BYTE,
  bodyFits,
  largestBodyThatFits,
  worstDeliveryEventBytes,
  worstRunEventBytes,
} from './event-size.rules';
import { extractRequest } from './request-body.rules';
import { parseContentType, type ParsedContentType } from './request-headers.rules';

const N = 4096;
const routine: RoutineState = {
  routineId: 'rtn_AAAAAAAAAAAAAAAAAAAAAA',
  name: 'Triage',
  instructions: 'File it.',
  tools: [{ name: 'search', sendsExternally: false }],
  mode: 'supervised',
  accountScope: ['acc_AAAAAAAAAAAAAAAAAAAAAA'],
  createdAt: '2024-05-01T12:00:00.000Z',
  updatedAt: '2024-05-01T12:00:00.000Z',
};
/** The longest address and key a request can carry, each character as costly as it gets in JSON. */
const longEmail = `${'"'.repeat(240)}@example.com`;
const longKey = '\\'.repeat(255);
const METADATA_BYTES = 400; // event id, correlation and causation ids, schema version, traceparent

/** What a body becomes: its delivery (event and payload, as stored) and its run (as relayed to Kafka). */
function encodedEvents(bytes: Buffer, contentTypeHeader: string): { delivery: number; run: number } {
  const contentType = parseContentType(contentTypeHeader) as ParsedContentType;
  const extracted = extractRequest({ bytes, contentType, accountHeader: undefined });
  if ('kind' in extracted) throw new Error(`not accepted: ${extracted.detail}`);
  const command: AcceptDelivery = {
    type: 'AcceptDelivery',
    deliveryId: 'dlv_AAAAAAAAAAAAAAAAAAAAAAAA',
    runId: 'run_AAAAAAAAAAAAAAAAAAAAAAAA',
    webhookId: 'whk_AAAAAAAAAAAAAAAAAAAAAA',
    routineId: routine.routineId,
    triggerAccount: { accountId: 'acc_AAAAAAAAAAAAAAAAAAAAAA', email: longEmail },
    payload: extracted.payload,
    contentType: contentType.mediaType,
    idempotencyKey: longKey,
    requestDigest: 'd'.repeat(64),
    now: '2024-05-01T12:00:00.000Z',
    retentionMs: 86_400_000,
    payloadExpiresAt: '2024-05-31T12:00:00.000Z',
  };
  const delivery = decideDelivery(command, null);
  if (delivery.kind !== 'accepted') throw new Error('delivery refused');
  const deliveryData = delivery.events[0].data;
  const run = decideRun({ type: 'CreateRun', delivery: deliveryData, routine, now: command.now }, null);
  if (run.kind !== 'accepted') throw new Error('run refused');
  const size = (data: object): number => Buffer.byteLength(JSON.stringify(data)) + METADATA_BYTES;
  // The delivery's event and its payload kept apart, the payload as a JSON string (the costlier of the stores' encodings).
  const { payload } = command;
  const payloadJson = Buffer.byteLength(JSON.stringify(payload.format === 'json' ? payload.json : payload.text));
  // The run as routines.runs.v1 carries it: its framed message in place of its framing.
  const [created] = run.events;
  if (created.type !== 'RunCreated') throw new Error('no run');
  const runData = created.data;
  const { framing: _framing, ...runWithoutFraming } = runData;
  return {
    delivery: size(deliveryData) + payloadJson,
    run: size({ ...runWithoutFraming, initialMessage: runInitialMessage(runData, payload) }),
  };
}

const snapshotBytes = Buffer.byteLength(
  JSON.stringify({ name: routine.name, tools: routine.tools, instructions: routine.instructions, mode: routine.mode }),
);

/** Bodies chosen to make each encoder expand as much as it can, N bytes each. */
const hostileBodies: [string, Buffer, string][] = [
  ['text of control characters', Buffer.alloc(N, 0x01), 'text/plain'],
  ['text of quotes', Buffer.alloc(N, '"'), 'text/plain'],
  ['text of backslashes', Buffer.alloc(N, '\\'), 'text/plain'],
  ['text of < > &', Buffer.from('<>&'.repeat(N / 4).padEnd(N, '<')), 'text/plain'],
  ['Latin-1 bytes 0x80-0xFF', Buffer.from(Array.from({ length: N }, (_, i) => 0x80 + (i % 128))), 'text/plain; charset=iso-8859-1'],
  ['windows-1252 bytes that become 3-byte characters', Buffer.alloc(N, 0x80), 'text/plain; charset=windows-1252'],
  ['UTF-16 control characters', Buffer.from('\u0001'.repeat(N / 2), 'utf16le'), 'text/plain; charset=utf-16le'],
  ['UTF-8 two-byte characters', Buffer.from('é'.repeat(N / 2)), 'text/plain'],
  ['UTF-8 emoji', Buffer.from('😀'.repeat(N / 4)), 'text/plain'],
  ['a JSON string of < characters', Buffer.from(`"${'<'.repeat(N - 2)}"`), 'application/json'],
  ['a JSON string of escaped control characters', Buffer.from(`"${'\\u0001'.repeat((N - 2) / 6)}"`.padEnd(N, ' ')), 'application/json'],
  ['JSON data of quotes and backslashes', Buffer.from(`{"data":"${'\\"\\\\'.repeat((N - 11) / 4)}"}`.padEnd(N, ' ')), 'application/json'],
];

describe('event size budget', () => {
  it.each(hostileBodies)('bounds both events of %s by the worst case for its size', (_name, bytes, contentType) => {
    const sizes = encodedEvents(bytes, contentType);
    expect(sizes.delivery).toBeLessThanOrEqual(worstDeliveryEventBytes(bytes.length));
    expect(sizes.run).toBeLessThanOrEqual(worstRunEventBytes(bytes.length, snapshotBytes));
  });

  it('is close to tight: control characters in text make a run of almost 7 bytes per body byte', () => {
    const sizes = encodedEvents(Buffer.alloc(N, 0x01), 'text/plain');
    expect(sizes.run).toBeGreaterThan((RUN_EVENT_BYTES_PER_BODY_BYTE - 0.1) * N);
  });

  it('finds the largest body that fits a limit, and says whether a body fits', () => {
    const limit = 1_048_576;
    const largest = largestBodyThatFits(limit, snapshotBytes);
    expect(bodyFits(largest, snapshotBytes, limit)).toBe(true);
    expect(bodyFits(largest + 1, snapshotBytes, limit)).toBe(false);
    expect(worstRunEventBytes(largest, snapshotBytes)).toBeLessThanOrEqual(limit);
    // The default 256 KiB body does not fit EventStoreDB's default 1 MiB append size: it must be raised (compose does).
    expect(bodyFits(262_144, 0, limit)).toBe(false);
    expect(bodyFits(262_144, 0, 16 * 1024 * 1024 - 64 * 1024)).toBe(true);
  });

  it('leaves no room for a body when the routine alone fills the limit', () => {
    expect(largestBodyThatFits(100_000, 200_000)).toBe(0);
    expect(bodyFits(1, 200_000, 100_000)).toBe(false);
  });
});

describe('bodyFits at the exact boundary', () => {
  it('a body whose run event is exactly the limit fits; one byte of limit less does not', () => {
    const snapshot = 1234;
    const exact = worstRunEventBytes(100, snapshot);
    expect(bodyFits(100, snapshot, exact)).toBe(true);
    expect(bodyFits(100, snapshot, exact - 1)).toBe(false);
  });
});
