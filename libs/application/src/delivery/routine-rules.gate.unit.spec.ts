import { extractRequest, extractSignedRequest, isRejection, type ConfiguredWebhook, type ExtractedRequest } from '@wts/domain';
import { PlainPayload, RoutineRulesGate } from './routine-rules.gate';

const JSON_UTF8 = { mediaType: 'application/json', charset: 'utf-8' } as const;

function extracted(text: string, signed = false): ExtractedRequest {
  const bytes = Buffer.from(text, 'utf8');
  const result = signed
    ? extractSignedRequest({ bytes, contentType: JSON_UTF8 })
    : extractRequest({ bytes, contentType: JSON_UTF8, accountHeader: undefined });
  if (isRejection(result)) throw new Error(`${result.code}: ${result.detail}`);
  return result;
}

describe('PlainPayload: the payload a filter and a schema read', () => {
  it('given a body of plain numbers, then it is the body’s own parse (data member or whole), not a second one', () => {
    const inData = extracted('{"data":{"action":"opened","n":42,"x":0.5,"list":[1,"a",null]},"account_email":"a@example.com"}');
    const whole = extracted('{"action":"opened","n":42}', true);
    expect(inData.jsonIsPlain).toBe(true);
    expect(new PlainPayload(inData).value).toBe((inData.json as Record<string, unknown>)['data']);
    expect(new PlainPayload(whole).value).toBe(whole.json);
    expect(new PlainPayload(inData).value).toEqual({ action: 'opened', n: 42, x: 0.5, list: [1, 'a', null] });
  });

  it('given a number a double cannot spell as sent, then the payload is parsed natively: plain numbers, never LosslessNumber', () => {
    const request = extracted('{"data":{"n":12345678901234567890,"m":1.0,"big":1e2}}');
    expect(request.jsonIsPlain).toBe(false);
    const value = new PlainPayload(request).value;
    expect(value).not.toBe((request.json as Record<string, unknown>)['data']);
    expect(value).toEqual(JSON.parse('{"n":12345678901234567890,"m":1,"big":100}'));
    expect(Object.values(value as object).every((member) => typeof member === 'number')).toBe(true);
  });

  it('given a __proto__ member, then both paths read it as plain data', () => {
    for (const text of ['{"data":{"__proto__":{"a":1}}}', '{"data":{"__proto__":{"a":1.0}}}']) {
      const value = new PlainPayload(extracted(text)).value as Record<string, unknown>;
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(Object.prototype.hasOwnProperty.call(value, '__proto__')).toBe(true);
      expect(value['__proto__']).toEqual({ a: 1 });
    }
  });

  it('given text, then it is the text', () => {
    const result = extractRequest({
      bytes: Buffer.from('hello'),
      contentType: { mediaType: 'text/plain', charset: 'utf-8' },
      accountHeader: undefined,
    });
    if (isRejection(result)) throw new Error(result.code);
    expect(new PlainPayload(result).value).toBe('hello');
  });
});

describe("RoutineRulesGate: a saved schema on a delivery's path", () => {
  afterEach(() => jest.restoreAllMocks());

  it('given a machine so busy that every timed try overruns, when a delivery is checked, then the schema still refuses it', () => {
    let now = 0;
    jest.spyOn(performance, 'now').mockImplementation(() => (now += 40));
    const webhook = { webhookId: 'whk_busy', payloadSchema: JSON.stringify({ required: ['action'] }) } as ConfiguredWebhook;
    const errors = new RoutineRulesGate().schemaErrors(webhook, new PlainPayload(extracted('{"other":1}')));
    expect(errors).toEqual([{ instance_path: '', keyword: 'required', message: "must have required property 'action'" }]);
  });
});
