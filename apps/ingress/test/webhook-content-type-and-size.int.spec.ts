/**
 * Spec rules 2 and 3, DESIGN "HTTP contract": only application/json and text/plain (parameters
 * such as charset allowed) else 415; the size limit is enforced on bytes while reading (declared
 * or streamed), never by truncating, else 413 — and nothing is appended.
 */
import { gzipSync } from 'node:zlib';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';

const LIMIT = 1024;

/** A JSON body of exactly `size` bytes: {"data":"xxx…"}. */
function jsonOfSize(size: number): string {
  const overhead = JSON.stringify({ data: '' }).length;
  return JSON.stringify({ data: 'x'.repeat(size - overhead) });
}

describe('public endpoint: content type (415) and size (413)', () => {
  const t = useIngressTestApp({ WEBHOOK_MAX_PAYLOAD_BYTES: String(LIMIT) });
  let hook: WebhookFixture;

  beforeAll(async () => {
    hook = await t.setupWebhook();
  });

  describe('415 unsupported media type', () => {
    it('refuses a request without Content-Type (with a body and with none)', async () => {
      const withBody = await t.rawRequest(
        'POST',
        t.webhookPath(hook.webhookId),
        { authorization: `Bearer ${hook.secret}`, 'content-length': 2 },
        ['{}'],
      );
      expect(withBody.status).toBe(415);
      expect(withBody.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(withBody.body.toString('utf8'))).toMatchObject({ status: 415, code: 'unsupported_media_type' });

      const empty = await t.rawRequest('POST', t.webhookPath(hook.webhookId), { authorization: `Bearer ${hook.secret}` });
      expect(empty.status).toBe(415);
      expect(JSON.parse(empty.body.toString('utf8'))).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    });

    it.each([
      'application/xml',
      'text/xml',
      'multipart/form-data; boundary=abc',
      'application/x-www-form-urlencoded',
      'application/jsonx',
      'application/json-patch+json',
      'text/html',
      'text/plainx',
      'application/octet-stream',
    ])('refuses %s', async (contentType) => {
      const result = await t.deliver(hook, { contentType, body: '{"data":1}' });
      expectProblem(result, 415, 'unsupported_media_type');
    });

    it.each(['application/json; charset=klingon-8', 'text/plain; charset=no-such-charset'])(
      'refuses an unknown charset: %s',
      async (contentType) => {
        const result = await t.deliver(hook, { contentType, body: '{"data":1}' });
        expectProblem(result, 415, 'unsupported_media_type');
      },
    );

    it.each([
      'application/json',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'APPLICATION/JSON',
      'text/plain',
      'text/plain;charset=UTF-8',
      'text/plain; charset=utf-8',
    ])('accepts %s', async (contentType) => {
      const result = await t.deliver(hook, { contentType, body: '{"data":{"ok":true}}' });
      expect(result.status).toBe(202);
    });
  });

  describe('415 for a Content-Encoding the service does not decode (RFC 9110 §15.5.16)', () => {
    const gzipped = gzipSync(Buffer.from('{"data":{"compressed":true}}'));
    const send = (webhookId: string, secret: string, encoding: string, body: Buffer) =>
      t.rawRequest(
        'POST',
        t.webhookPath(webhookId),
        {
          authorization: `Bearer ${secret}`,
          'content-type': 'application/json',
          'content-encoding': encoding,
          'content-length': body.length,
        },
        [body],
      );

    it.each(['gzip', 'br', 'deflate', 'GZIP', 'identity, gzip', 'x-custom'])(
      'Content-Encoding: %s → 415 unsupported_content_encoding with Accept-Encoding: identity, nothing appended',
      async (encoding) => {
        const before = (await t.acceptedDeliveries()).length;
        const result = await send(hook.webhookId, hook.secret, encoding, gzipped);
        expect(result.status).toBe(415);
        expect(result.headers['accept-encoding']).toBe('identity');
        expect(JSON.parse(result.body.toString('utf8'))).toMatchObject({
          status: 415,
          code: 'unsupported_content_encoding',
          title: 'Unsupported Media Type',
        });
        expect(await t.acceptedDeliveries()).toHaveLength(before);
      },
    );

    it('Content-Encoding: identity (any case, listed twice) is a body as sent → 202', async () => {
      const plain = Buffer.from('{"data":{"compressed":false}}');
      expect((await send(hook.webhookId, hook.secret, 'identity', plain)).status).toBe(202);
      expect((await send(hook.webhookId, hook.secret, 'Identity, identity', plain)).status).toBe(202);
    });

    it('authentication still comes first: a compressed body to an unknown id or with a wrong secret is the one 404', async () => {
      for (const [webhookId, secret] of [
        ['whk_AAAAAAAAAAAAAAAAAAAAAA', hook.secret],
        [hook.webhookId, 'whsec_wrong'],
      ]) {
        const result = await send(webhookId, secret, 'gzip', gzipped);
        expect(result.status).toBe(404);
        expect(result.headers['accept-encoding']).toBeUndefined();
      }
    });
  });

  describe('413 payload too large', () => {
    /** The body in two chunks, without Content-Length: only byte counting while streaming can judge it. */
    const streamed = (contentType: string, body: Buffer) =>
      t.rawRequest(
        'POST',
        t.webhookPath(hook.webhookId),
        { authorization: `Bearer ${hook.secret}`, 'content-type': contentType, 'transfer-encoding': 'chunked' },
        [body.subarray(0, 101), body.subarray(101)],
      );

    it('accepts a body of exactly the limit and refuses one byte more, declared (Content-Length) and streamed (chunked)', async () => {
      const exact = jsonOfSize(LIMIT);
      expect(Buffer.byteLength(exact)).toBe(LIMIT);
      const ok = await t.deliver(hook, { body: exact });
      expect(ok.status).toBe(202);

      const before = (await t.acceptedDeliveries()).length;
      const over = await t.deliver(hook, { body: jsonOfSize(LIMIT + 1) });
      expectProblem(over, 413, 'payload_too_large');
      expect(await t.acceptedDeliveries()).toHaveLength(before);

      expect((await streamed('application/json', Buffer.from(exact))).status).toBe(202);
      const streamedOver = await streamed('application/json', Buffer.from(jsonOfSize(LIMIT + 1)));
      expect(streamedOver.status).toBe(413);
      // The status line says what the problem's title says (RFC 9110's name, not Node's "Payload Too Large").
      expect(streamedOver.statusMessage).toBe('Content Too Large');
      expect(JSON.parse(streamedOver.body.toString('utf8'))).toMatchObject({
        status: 413,
        code: 'payload_too_large',
        title: 'Content Too Large',
      });
      expect(await t.acceptedDeliveries()).toHaveLength(before + 1);
    });

    it('counts bytes, not characters (text/plain with two-byte characters), declared and streamed', async () => {
      const contentType = 'text/plain; charset=utf-8';
      const fits = await t.deliver(hook, { contentType, body: 'é'.repeat(LIMIT / 2) });
      expect(fits.status).toBe(202);
      const over = await t.deliver(hook, { contentType, body: 'é'.repeat(LIMIT / 2 + 1) });
      expectProblem(over, 413, 'payload_too_large');

      // Streamed, with a two-byte character split across the chunks (101 is odd): LIMIT / 2
      // characters are LIMIT bytes and fit; one character more is LIMIT + 2 bytes and does not.
      const streamedFits = await streamed(contentType, Buffer.from('é'.repeat(LIMIT / 2), 'utf8'));
      expect(streamedFits.status).toBe(202);
      const streamedOver = await streamed(contentType, Buffer.from('é'.repeat(LIMIT / 2 + 1), 'utf8'));
      expect(streamedOver.status).toBe(413);
    });

    it('refuses a chunked body without Content-Length that grows past the limit, and accepts one at the limit', async () => {
      const headers = { authorization: `Bearer ${hook.secret}`, 'content-type': 'text/plain', 'transfer-encoding': 'chunked' };
      const over = await t.rawRequest('POST', t.webhookPath(hook.webhookId), headers, ['a'.repeat(400), 'b'.repeat(400), 'c'.repeat(400)]);
      expect(over.status).toBe(413);
      expect(JSON.parse(over.body.toString('utf8'))).toMatchObject({ status: 413, code: 'payload_too_large' });

      const atLimit = await t.rawRequest('POST', t.webhookPath(hook.webhookId), headers, ['a'.repeat(512), 'b'.repeat(512)]);
      expect(atLimit.status).toBe(202);
    });

    // Declared: refused with the body's first bytes only sent; endless: refused once the bytes sent pass the limit.
    it.each([
      ['refuses a declared Content-Length over the limit before the body is sent', { 'content-length': 10 * 1024 * 1024 }, '{"data":"'],
      ['refuses an endless chunked body as soon as it passes the limit', { 'transfer-encoding': 'chunked' }, 'x'.repeat(LIMIT + 10)],
    ])('%s', async (_name, framing, chunk) => {
      const headers = { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json', ...framing };
      const response = await t.rawRequest('POST', t.webhookPath(hook.webhookId), headers, [chunk], { end: false });
      expect(response.status).toBe(413);
      if ('content-length' in framing) expect(response.written).toBeLessThan(LIMIT);
    });

    it('appends nothing for a refused request (415, 413 declared, streamed or endless): the store and the listing stay as they were', async () => {
      const refused = await t.setupWebhook({ account: hook.account });
      const path = t.webhookPath(refused.webhookId);
      const auth = `Bearer ${refused.secret}`;
      const accepted = await t.deliver(refused, { body: '{"data":"the one accepted"}' });
      expect(accepted.status).toBe(202);
      const storedBefore = (await t.acceptedDeliveries()).length;

      expect((await t.deliver(refused, { contentType: 'application/xml', body: '<a/>' })).status).toBe(415);
      expect((await t.deliver(refused, { body: jsonOfSize(LIMIT + 1) })).status).toBe(413);
      const chunked = { authorization: auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' };
      expect((await t.rawRequest('POST', path, chunked, ['x'.repeat(600), 'x'.repeat(600)])).status).toBe(413);
      expect((await t.rawRequest('POST', path, chunked, ['x'.repeat(LIMIT + 10)], { end: false })).status).toBe(413);
      const declared = { authorization: auth, 'content-type': 'application/json', 'content-length': 10 * LIMIT };
      expect((await t.rawRequest('POST', path, declared, ['{"data":'], { end: false })).status).toBe(413);

      expect(await t.acceptedDeliveries()).toHaveLength(storedBefore);
      expect(await t.acceptedDeliveries(refused.routineId)).toHaveLength(1);
      // The listing follows the store: exactly the accepted one, nothing from the refused requests.
      const listed = await t.waitForDeliveries(refused.routineId, 1);
      expect(listed.map((delivery) => delivery.delivery_id)).toEqual([(accepted.json as { delivery_id: string }).delivery_id]);
    });
  });
});
