import type { PayloadRecord, RunCreated } from '@wts/contracts';
import { ACCOUNT_A, DELIVERY_ID, ROUTINE_ID, RUN_ID, TEAM_ACCOUNT, WEBHOOK_ID } from '@wts/testing';
import { FRAMER_VERSION } from '@wts/domain';
import { isLosslessNumber, parse as losslessParse } from 'lossless-json';
import { payloadAsJsonText, serializeRunView } from './run.mapper';
import { toRunView, type RunView } from './run.view';

function run(overrides: Partial<RunCreated['data']> = {}): RunCreated['data'] {
  return {
    runId: RUN_ID,
    routineId: ROUTINE_ID,
    webhookId: WEBHOOK_ID,
    deliveryId: DELIVERY_ID,
    triggerAccount: TEAM_ACCOUNT,
    routine: {
      name: 'Triage',
      tools: [{ name: 'email.send', sendsExternally: true }],
      instructions: 'File it.',
      mode: 'supervised',
    },
    // A run written before messages were framed on read: its stored message (see run-message.framer for framed ones).
    framing: null,
    legacyInitialMessage: 'framed message',
    status: 'created',
    createdAt: '2024-05-01T12:00:01.000Z',
    ...overrides,
  };
}

const view = (payload: PayloadRecord, overrides: Partial<RunCreated['data']> = {}): RunView =>
  toRunView(run(overrides), { state: 'kept', payload });

/** Every field of run(), as the admin shape spells it (the payload aside). */
const runInSnakeCase = {
  run_id: RUN_ID,
  routine_id: ROUTINE_ID,
  webhook_id: WEBHOOK_ID,
  delivery_id: DELIVERY_ID,
  trigger_account: { account_id: ACCOUNT_A, email: 'Team@Example.com' },
  status: 'created',
  created_at: '2024-05-01T12:00:01.000Z',
  initial_message: 'framed message',
  payload_state: 'kept',
  payload_removed_at: null,
  routine: { name: 'Triage', tools: [{ name: 'email.send', sends_externally: true }], instructions: 'File it.', mode: 'supervised' },
};

describe('toRunView', () => {
  it('maps a run to the snake_case admin shape', () => {
    expect(view({ format: 'text', text: 'hi' })).toEqual({
      ...runInSnakeCase,
      payload: { format: 'text', text: 'hi' },
    });
  });
});

describe('toRunView of a removed payload', () => {
  it.each(['expired', 'erased'] as const)('given a payload %s, then the payload and the message are null, with when it went', (state) => {
    const removedAt = new Date('2024-06-01T00:00:00.000Z');
    const removed = toRunView(
      run({ framing: { version: FRAMER_VERSION, receivedAt: '2024-05-01T12:00:00.000Z', contentType: 'application/json' } }),
      {
        state,
        removedAt,
        erasureId: null,
      },
    );
    expect(removed).toEqual({
      ...runInSnakeCase,
      initial_message: null,
      payload: null,
      payload_state: state,
      payload_removed_at: '2024-06-01T00:00:00.000Z',
    });
    expect(JSON.parse(serializeRunView(removed))).toEqual({
      ...runInSnakeCase,
      initial_message: null,
      payload: null,
      payload_format: null,
      payload_state: state,
      payload_removed_at: '2024-06-01T00:00:00.000Z',
    });
  });

  it('given a kept payload of a run framed on read, then its message is framed from the payload', () => {
    const framed = view(
      { format: 'json', json: '{"n":1}' },
      { framing: { version: FRAMER_VERSION, receivedAt: '2024-05-01T12:00:00.000Z', contentType: 'application/json' } },
    );
    expect(framed.initial_message).toContain(`<<<UNTRUSTED_PAYLOAD_BEGIN delivery=${DELIVERY_ID}>>>\n{"n":1}\n`);
  });
});

describe('payloadAsJsonText', () => {
  it('keeps JSON payload text as is', () => {
    expect(payloadAsJsonText({ format: 'json', json: '{"n":12345678901234567890}' })).toBe('{"n":12345678901234567890}');
  });

  it('writes a text payload as a JSON string', () => {
    expect(payloadAsJsonText({ format: 'text', text: 'a "quoted"\nline' })).toBe('"a \\"quoted\\"\\nline"');
  });
});

describe('serializeRunView', () => {
  it('is valid JSON with every run field', () => {
    const parsed = JSON.parse(serializeRunView(view({ format: 'json', json: '{"a":1}' }))) as Record<string, unknown>;
    expect(parsed).toEqual({
      ...runInSnakeCase,
      payload_format: 'json',
      payload: { a: 1 },
    });
  });

  it('splices a JSON payload in verbatim, so 20-digit numbers keep every digit', () => {
    const text = serializeRunView(view({ format: 'json', json: '{"id":12345678901234567890,"x":[1.10,1e400]}' }));
    expect(text).toContain('"payload":{"id":12345678901234567890,"x":[1.10,1e400]}');
    const parsed = losslessParse(text) as { payload: { id: unknown } };
    expect(isLosslessNumber(parsed.payload.id) && parsed.payload.id.toString()).toBe('12345678901234567890');
  });

  it.each([
    ['null', 'null'],
    ['a top-level number', '98765432109876543210'],
    ['a string', '"s"'],
    ['an array', '[1,2,3]'],
  ])('splices a JSON payload that is %s', (_case, json) => {
    const text = serializeRunView(view({ format: 'json', json }));
    expect(text.endsWith(`"payload_format":"json","payload":${json}}`)).toBe(true);
  });

  it('writes a text payload as a JSON string', () => {
    const raw = 'line 1\n{"not":"json"} 12345678901234567890 \u2028 ü';
    const text = serializeRunView(view({ format: 'text', text: raw }));
    const parsed = JSON.parse(text) as { payload: unknown; payload_format: unknown };
    expect(parsed.payload_format).toBe('text');
    expect(parsed.payload).toBe(raw);
  });

  it('is not confused by other fields that look like the payload placeholder', () => {
    const marker = '\u0000payload\u0000';
    const text = serializeRunView(
      view(
        { format: 'json', json: '{"real":true}' },
        { legacyInitialMessage: marker, routine: { name: marker, tools: [], instructions: `"${marker}"`, mode: 'supervised' } },
      ),
    );
    const parsed = JSON.parse(text) as { payload: unknown; initial_message: unknown; routine: { name: unknown } };
    expect(parsed.payload).toEqual({ real: true });
    expect(parsed.initial_message).toBe(marker);
    expect(parsed.routine.name).toBe(marker);
  });

  it('keeps payload text that itself contains the placeholder', () => {
    const text = serializeRunView(view({ format: 'text', text: '\u0000payload\u0000' }));
    expect((JSON.parse(text) as { payload: unknown }).payload).toBe('\u0000payload\u0000');
  });
});
