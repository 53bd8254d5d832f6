import { threadLogFields } from './service-thread.protocol';

describe('threadLogFields (a thread log line as data the main thread can be sent)', () => {
  it('given plain fields, then they cross as they are', () => {
    expect(threadLogFields({ relay: 'dispatcher-runs', attempt: 2, ok: true, nested: { ids: ['a', 'b'] }, none: null })).toEqual({
      relay: 'dispatcher-runs',
      attempt: 2,
      ok: true,
      nested: { ids: ['a', 'b'] },
      none: null,
    });
  });

  it('given errors, bigints and functions at any depth, then they cross as text', () => {
    const fields = { err: new TypeError('bad'), position: { commit: 12n }, retry: () => undefined, cause: { error: new Error('deep') } };
    expect(threadLogFields(fields)).toEqual({
      err: 'TypeError: bad',
      position: { commit: '12' },
      retry: '() => undefined',
      cause: { error: 'Error: deep' },
    });
  });

  it('given fields with a cycle, then they cross as one inspected text, and the postMessage clone would take it', () => {
    const fields: Record<string, unknown> = { relay: 'x' };
    fields.self = fields;
    const sent = threadLogFields(fields);
    expect(sent).toEqual({ fields: expect.stringContaining("relay: 'x'") as unknown });
    expect(() => structuredClone(sent)).not.toThrow();
  });
});
