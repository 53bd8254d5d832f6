import type { RandomSource } from './runtime.port';
import { childTraceparent, isTraceparent } from './trace-context';

/** Deterministic bytes: each call returns count bytes of an incrementing fill value. */
function fakeRandom(): RandomSource & { calls: number[] } {
  let fill = 0x10;
  const calls: number[] = [];
  return {
    calls,
    bytes(count: number): Buffer {
      calls.push(count);
      return Buffer.alloc(count, fill++);
    },
    uuid: () => '00000000-0000-4000-8000-000000000000',
  };
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const INCOMING = `00-${TRACE_ID}-${PARENT_ID}-01`;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

function parts(value: string): { traceId: string; spanId: string; flags: string } {
  const match = TRACEPARENT.exec(value);
  if (!match) throw new Error(`not a traceparent: ${value}`);
  return { traceId: match[1] as string, spanId: match[2] as string, flags: match[3] as string };
}

describe('childTraceparent', () => {
  it("keeps a valid caller's trace id and flags with a new span id", () => {
    const child = parts(childTraceparent(INCOMING, fakeRandom()));
    expect(child.traceId).toBe(TRACE_ID);
    expect(child.flags).toBe('01');
    expect(child.spanId).not.toBe(PARENT_ID);
    expect(child.spanId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('keeps the flags the caller sent (not sampled)', () => {
    expect(parts(childTraceparent(`00-${TRACE_ID}-${PARENT_ID}-00`, fakeRandom())).flags).toBe('00');
  });

  it('accepts surrounding whitespace on the incoming value', () => {
    expect(parts(childTraceparent(`  ${INCOMING} `, fakeRandom())).traceId).toBe(TRACE_ID);
  });

  it('draws 8 random bytes for the span id only when the trace id is kept', () => {
    const random = fakeRandom();
    expect(childTraceparent(INCOMING, random)).toBe(`00-${TRACE_ID}-${'10'.repeat(8)}-01`);
    expect(random.calls).toEqual([8]);
  });

  it('starts a new trace, sampled, when there is no incoming value', () => {
    const random = fakeRandom();
    expect(childTraceparent(undefined, random)).toBe(`00-${'10'.repeat(16)}-${'11'.repeat(8)}-01`);
    expect(random.calls).toEqual([16, 8]);
  });

  it.each([
    ['empty', ''],
    ['garbage', 'not-a-traceparent'],
    ['upper-case hex', INCOMING.toUpperCase()],
    ['another version', `01-${TRACE_ID}-${PARENT_ID}-01`],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`],
    ['a short span id', `00-${TRACE_ID}-${PARENT_ID.slice(1)}-01`],
    ['missing flags', `00-${TRACE_ID}-${PARENT_ID}`],
    ['extra fields', `${INCOMING}-extra`],
  ])('starts a new trace when the incoming value is %s', (_case, incoming) => {
    const child = childTraceparent(incoming, fakeRandom());
    expect(isTraceparent(child)).toBe(true);
    expect(parts(child).traceId).toBe('10'.repeat(16));
    expect(parts(child).flags).toBe('01');
  });

  it('starts a new trace id when the incoming trace id is all zeros (invalid)', () => {
    const child = parts(childTraceparent(`00-${'0'.repeat(32)}-${PARENT_ID}-01`, fakeRandom()));
    expect(child.traceId).toBe('10'.repeat(16));
    expect(child.traceId).not.toMatch(/^0+$/);
  });

  // W3C Trace Context §3.2.2: an all-zero trace-id or parent-id is invalid, and vendors MUST ignore
  // such a traceparent entirely — start a new trace with the default flags.
  it('ignores an incoming traceparent whose trace id is all zeros entirely (new trace, default flags)', () => {
    const child = parts(childTraceparent(`00-${'0'.repeat(32)}-${PARENT_ID}-00`, fakeRandom()));
    expect(child.traceId).toBe('10'.repeat(16));
    expect(child.flags).toBe('01');
  });

  it('ignores an incoming traceparent whose parent id is all zeros (new trace)', () => {
    const child = parts(childTraceparent(`00-${TRACE_ID}-${'0'.repeat(16)}-01`, fakeRandom()));
    expect(child.traceId).not.toBe(TRACE_ID);
    expect(child.traceId).toBe('10'.repeat(16));
  });

  it('gives each child its own span id', () => {
    const random = fakeRandom();
    expect(parts(childTraceparent(INCOMING, random)).spanId).not.toBe(parts(childTraceparent(INCOMING, random)).spanId);
  });

  it('always produces a valid traceparent', () => {
    for (const incoming of [undefined, '', INCOMING, 'junk']) {
      expect(isTraceparent(childTraceparent(incoming, fakeRandom()))).toBe(true);
    }
  });
});

describe('isTraceparent', () => {
  it('accepts the W3C version 00 shape', () => {
    expect(isTraceparent(INCOMING)).toBe(true);
  });

  it.each(['', 'junk', INCOMING.toUpperCase(), ` ${INCOMING}`, `${INCOMING}-x`])('refuses %j', (value) => {
    expect(isTraceparent(value)).toBe(false);
  });
});
