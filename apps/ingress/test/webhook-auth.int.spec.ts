/**
 * Spec rule 1 / §5, DESIGN guarantee 5: unknown endpoint, malformed id, disabled endpoint, wrong or
 * missing secret all give one 404 — same status, same headers but Date, byte-identical body —
 * decided from the headers alone, before the body is read.
 */
import { DECOY_DIGEST, digestSecret } from '@wts/domain';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';
import type { RawResponse } from '../../../test/support/raw-http.request';

const MAX_PAYLOAD = 1024;

/** Header names and values, lower-cased names, without Date: what must be identical. */
function comparableHeaders(response: RawResponse): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < response.rawHeaders.length; i += 2) {
    const name = (response.rawHeaders[i] as string).toLowerCase();
    if (name !== 'date') pairs.push([name, response.rawHeaders[i + 1] as string]);
  }
  return pairs;
}

describe('public endpoint: authentication (one 404 for every failure)', () => {
  const t = useIngressTestApp({ WEBHOOK_MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD) });
  let hook: WebhookFixture;
  let other: WebhookFixture;
  let disabled: WebhookFixture;

  beforeAll(async () => {
    hook = await t.setupWebhook();
    other = await t.setupWebhook();
    disabled = await t.setupWebhook();
    await t.adminOk('POST', `/admin/routines/${disabled.routineId}/webhook/disable`, undefined, 200);
  });

  const body = JSON.stringify({ data: { order: 42 } });
  const post = (webhookId: string, authorization: string | undefined, contentType = 'application/json'): Promise<RawResponse> => {
    const headers: Record<string, string | number> = { 'content-type': contentType, 'content-length': Buffer.byteLength(body) };
    if (authorization !== undefined) headers.authorization = authorization;
    return t.rawRequest('POST', t.webhookPath(webhookId), headers, [body]);
  };

  it('answers byte-identical 404s for unknown, malformed, disabled, wrong, missing, Basic and foreign secrets', async () => {
    const unknownId = 'whk_AAAAAAAAAAAAAAAAAAAAAA';
    const wrongSecret = `whsec_${'A'.repeat(43)}`;
    const cases: Record<string, () => Promise<RawResponse>> = {
      'unknown webhook id': () => post(unknownId, `Bearer ${hook.secret}`),
      'malformed webhook id': () => post('not-a-webhook-id', `Bearer ${hook.secret}`),
      'malformed webhook id with prefix': () => post('whk_%21%21', `Bearer ${hook.secret}`),
      'disabled endpoint, its own secret': () => post(disabled.webhookId, `Bearer ${disabled.secret}`),
      'wrong secret': () => post(hook.webhookId, `Bearer ${wrongSecret}`),
      'missing Authorization': () => post(hook.webhookId, undefined),
      'empty Authorization': () => post(hook.webhookId, ''),
      'Bearer without token': () => post(hook.webhookId, 'Bearer '),
      'Basic scheme with the right secret': () => post(hook.webhookId, `Basic ${hook.secret}`),
      'bare secret without scheme': () => post(hook.webhookId, hook.secret),
      'secret of another webhook': () => post(hook.webhookId, `Bearer ${other.secret}`),
      'malformed secret': () => post(hook.webhookId, 'Bearer not a secret'),
      'right secret with a suffix': () => post(hook.webhookId, `Bearer ${hook.secret}x`),
    };
    const responses: [string, RawResponse][] = [];
    for (const [name, send] of Object.entries(cases)) responses.push([name, await send()]);

    const [firstName, first] = responses[0] as [string, RawResponse];
    expect(first.status).toBe(404);
    expect(first.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(first.body.toString('utf8'));
    expect(problem).toMatchObject({ status: 404, type: expect.any(String), title: expect.any(String), code: expect.any(String) });
    for (const [name, response] of responses) {
      expect({ case: name, status: response.status }).toEqual({ case: name, status: 404 });
      expect({ case: name, headers: comparableHeaders(response) }).toEqual({ case: name, headers: comparableHeaders(first) });
      expect({ case: name, body: response.body.toString('hex') }).toEqual({ case: name, body: first.body.toString('hex') });
    }
    expect(firstName).toBe('unknown webhook id');
    expect(await t.acceptedDeliveries()).toHaveLength(0);
  });

  /**
   * Same work on every path: one constant-time comparison of two 32-byte digests per request — for
   * an unknown or malformed id against the decoy digest. Removing the decoy comparison for unknown
   * ids, or comparing with `===`, fails this test (the comparison primitive is spied on through the
   * module object the code calls). A request with no Authorization at all carries no bearer secret:
   * its only possible proof is Microsoft Graph's clientState in the body, so it is checked that way
   * (docs/signed-senders.md) — one comparison of two SHA-256 digests too, known id or not, and never
   * against a bearer digest.
   */
  it('every path compares once in constant time: the decoy digest for unknown ids, the stored digest otherwise', async () => {
    const crypto = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    const decoy = Buffer.from(DECOY_DIGEST, 'hex');
    const cases: [string, () => Promise<RawResponse>, number, Buffer | 'stored' | 'clientState'][] = [
      ['unknown webhook id', () => post('whk_AAAAAAAAAAAAAAAAAAAAAA', `Bearer ${hook.secret}`), 404, decoy],
      ['malformed webhook id', () => post('not-a-webhook-id', `Bearer ${hook.secret}`), 404, decoy],
      ['unknown id, no Authorization', () => post('whk_AAAAAAAAAAAAAAAAAAAAAA', undefined), 404, 'clientState'],
      ['disabled endpoint, its own secret', () => post(disabled.webhookId, `Bearer ${disabled.secret}`), 404, 'stored'],
      ['wrong secret', () => post(hook.webhookId, `Bearer whsec_${'A'.repeat(43)}`), 404, 'stored'],
      ['missing Authorization', () => post(hook.webhookId, undefined), 404, 'clientState'],
      ['right secret', () => post(hook.webhookId, `Bearer ${hook.secret}`), 202, 'stored'],
    ];
    try {
      for (const [name, send, status, against] of cases) {
        spy.mockClear();
        const response = await send();
        expect({ name, status: response.status }).toEqual({ name, status });
        const calls = spy.mock.calls.map(([a, b]) => [Buffer.from(a as Uint8Array).length, Buffer.from(b as Uint8Array)] as const);
        expect({ name, comparisons: calls.length, lengths: calls.map(([length, b]) => [length, b.length]) }).toEqual({
          name,
          comparisons: 1,
          lengths: [[32, 32]],
        });
        const comparedWithDecoy = calls[0][1].equals(decoy);
        if (against === 'clientState') {
          // Graph's check: neither the bearer decoy nor the webhook's own digest.
          expect({ name, comparedWithDecoy, stored: calls[0][1].toString('hex') === digestSecret(hook.secret) }).toEqual({
            name,
            comparedWithDecoy: false,
            stored: false,
          });
          continue;
        }
        expect({ name, comparedWithDecoy }).toEqual({ name, comparedWithDecoy: against !== 'stored' });
      }
    } finally {
      spy.mockRestore();
    }
  });

  it('over a keep-alive client (fetch) the 404s are identical too', async () => {
    const variants = [
      () => t.deliver({ webhookId: 'whk_AAAAAAAAAAAAAAAAAAAAAA', secret: hook.secret }),
      () => t.deliver(disabled),
      () => t.deliver(hook, { authorization: `Bearer ${other.secret}` }),
      () => t.deliver(hook, { authorization: null }),
      () => t.deliver(hook, { authorization: `Basic ${hook.secret}` }),
      () => t.deliver(hook, { authorization: 'Bearer whsec_wrong', contentType: 'text/html' }),
    ];
    const seen: { status: number; headers: [string, string][]; text: string }[] = [];
    for (const send of variants) {
      const result = await send();
      seen.push({ status: result.status, headers: [...result.headers].filter(([name]) => name !== 'date'), text: result.text });
    }
    for (const response of seen) expect(response).toEqual(seen[0]);
    expect(seen[0]?.status).toBe(404);
  });

  it('the 404 is the same with a valid secret and an invalid content type (404 wins over 415)', async () => {
    const reference = await post('whk_AAAAAAAAAAAAAAAAAAAAAA', `Bearer ${hook.secret}`);
    for (const contentType of [
      'application/xml',
      'multipart/form-data; boundary=x',
      'text/html',
      'application/json;;',
      'application/jsonx',
    ]) {
      const wrong = await post(hook.webhookId, 'Bearer whsec_wrong', contentType);
      expect({ contentType, status: wrong.status }).toEqual({ contentType, status: 404 });
      expect({ contentType, headers: comparableHeaders(wrong) }).toEqual({ contentType, headers: comparableHeaders(reference) });
      expect(wrong.body.equals(reference.body)).toBe(true);
    }
    const missing = await t.rawRequest(
      'POST',
      t.webhookPath(hook.webhookId),
      { authorization: 'Bearer whsec_wrong', 'content-length': 2 },
      ['{}'],
    );
    expect(missing.status).toBe(404);
    expect(missing.body.equals(reference.body)).toBe(true);
  });

  it('404 wins even over a Content-Type that is not a type/subtype at all', async () => {
    const reference = await post('whk_AAAAAAAAAAAAAAAAAAAAAA', `Bearer ${hook.secret}`);
    for (const [target, authorization] of [
      [hook.webhookId, 'Bearer whsec_wrong'],
      ['whk_AAAAAAAAAAAAAAAAAAAAAA', `Bearer ${hook.secret}`],
      [disabled.webhookId, `Bearer ${disabled.secret}`],
    ] as const) {
      const response = await post(target, authorization, 'not a media type');
      expect({ target, status: response.status }).toEqual({ target, status: 404 });
      expect({ target, headers: comparableHeaders(response) }).toEqual({ target, headers: comparableHeaders(reference) });
      expect(response.body.toString('utf8')).toBe(reference.body.toString('utf8'));
    }
  });

  it('an overlong or badly percent-encoded webhook id is an unknown endpoint too: the same 404', async () => {
    const reference = await post('whk_AAAAAAAAAAAAAAAAAAAAAA', `Bearer ${hook.secret}`);
    for (const id of [`whk_${'A'.repeat(200)}`, 'whk_%FF', `${hook.webhookId}%FF`]) {
      const response = await post(id, `Bearer ${hook.secret}`);
      expect({ id: id.slice(0, 30), status: response.status, body: response.body.toString('utf8') }).toEqual({
        id: id.slice(0, 30),
        status: 404,
        body: reference.body.toString('utf8'),
      });
      expect(comparableHeaders(response)).toEqual(comparableHeaders(reference));
    }
  });

  it('accepts the scheme word in any case (bearer, BEARER) with the right secret', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      const result = await t.deliver(hook, { authorization: `${scheme} ${hook.secret}` });
      expect({ scheme, status: result.status }).toEqual({ scheme, status: 202 });
    }
  });

  it('a 404 response is a problem+json document', async () => {
    const result = await t.deliver({ webhookId: 'whk_AAAAAAAAAAAAAAAAAAAAAA', secret: hook.secret });
    expectProblem(result, 404);
  });

  describe('decided from headers, before the body is read', () => {
    const huge = 50 * 1024 * 1024;
    const declaredHuge = { 'content-length': huge };
    const endless = { 'transfer-encoding': 'chunked' };

    it.each([
      {
        name: '404 for a wrong secret with a declared huge Content-Length whose body is never sent',
        endpoint: 'known',
        secret: 'wrong',
        headers: { 'content-type': 'application/json', ...declaredHuge },
        chunks: ['{"data":'],
        status: 404,
      },
      {
        name: '404 for an unknown endpoint with an endless chunked body',
        endpoint: 'unknown',
        secret: 'right',
        headers: { 'content-type': 'application/json', ...endless },
        chunks: ['x'.repeat(100)],
        status: 404,
      },
      {
        name: '415 for the right secret and a bad content type, with a declared huge Content-Length never sent',
        endpoint: 'known',
        secret: 'right',
        headers: { 'content-type': 'application/xml', ...declaredHuge },
        chunks: ['<a>'],
        status: 415,
        code: 'unsupported_media_type',
      },
      {
        name: '415 for the right secret and a bad content type with an endless chunked body',
        endpoint: 'known',
        secret: 'right',
        headers: { 'content-type': 'multipart/form-data; boundary=zz', ...endless },
        chunks: ['--zz\r\n'],
        status: 415,
      },
      {
        name: '404 (not 415) for a wrong secret and a bad content type with a body never sent',
        endpoint: 'known',
        secret: 'wrong',
        headers: { 'content-type': 'application/xml', ...declaredHuge },
        chunks: [],
        status: 404,
      },
    ])('$name', async ({ endpoint, secret, headers, chunks, status, code }) => {
      const webhookId = endpoint === 'known' ? hook.webhookId : 'whk_AAAAAAAAAAAAAAAAAAAAAA';
      const authorization = secret === 'right' ? `Bearer ${hook.secret}` : 'Bearer whsec_wrong';
      const response = await t.rawRequest('POST', t.webhookPath(webhookId), { authorization, ...headers }, chunks, { end: false });
      expect(response.status).toBe(status);
      if (code) expect(JSON.parse(response.body.toString('utf8'))).toMatchObject({ status, code });
      expect(response.written).toBeLessThan(MAX_PAYLOAD);
    });
  });
});
