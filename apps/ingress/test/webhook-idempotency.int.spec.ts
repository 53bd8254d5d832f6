/**
 * Spec rule 11, DESIGN "X-Service-Idempotency-Key": a repeat within retention answers 202 with the
 * original body and `Idempotent-Replayed: true` and creates nothing; same key, other body → 422;
 * keys are scoped to the webhook; 1–255 visible ASCII else 400; concurrent repeats → one delivery,
 * one run; after retention the key starts a new delivery.
 */
import { IngressTestApp, useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { Json } from '../../../test/support/ingress-http.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';

const KEY = 'X-Service-Idempotency-Key';

describe('public endpoint: idempotency', () => {
  const t = useIngressTestApp();
  let hook: WebhookFixture;
  let other: WebhookFixture;
  /** Receives one delivery per settledRuns(): the evidence that the dispatcher got past the others. */
  let marker: WebhookFixture;

  beforeAll(async () => {
    hook = await t.setupWebhook();
    other = await t.setupWebhook({ account: hook.account });
    marker = await t.setupWebhook({ account: hook.account });
    await t.startDispatcher();
  });

  const send = (
    target: WebhookFixture,
    key: string | undefined,
    body = '{"data":{"order":1}}',
    contentType = 'application/json',
  ): ReturnType<IngressTestApp['deliver']> => t.deliver(target, { body, contentType, headers: key === undefined ? {} : { [KEY]: key } });

  /**
   * Waits until the dispatcher has caught up, then returns the runs of the routine. Evidence, not
   * time: a delivery sent after the others gets its run listed, and the listings follow the store
   * in order — a duplicate run of an earlier delivery would be listed by then.
   */
  async function settledRuns(routineId: string, expected: number): Promise<Json[]> {
    await t.waitForRuns(routineId, expected, 15_000);
    const later = await send(marker, undefined);
    expect(later.status).toBe(202);
    await t.waitForListedRun(marker.routineId, (later.json as Json).run_id as string, 15_000);
    return t.runs(routineId);
  }

  it('a repeat with the same key and body → 202, the same body, Idempotent-Replayed: true; one delivery, one run', async () => {
    const first = await send(hook, 'order-1');
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const second = await send(hook, 'order-1');
    expect(second.status).toBe(202);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(second.json).toEqual(first.json);

    const accepted = first.json as Json;
    expect(await t.acceptedDeliveries(hook.routineId)).toHaveLength(1);
    const listed = await t.waitForDelivery(hook.routineId, accepted.delivery_id);
    expect(listed.idempotency_key).toBe('order-1');
    expect(await t.deliveries(hook.routineId)).toHaveLength(1);
    await t.waitForRun(accepted.run_id);
    const runs = await settledRuns(hook.routineId, 1);
    expect(runs.map((r: Json) => r.run_id)).toEqual([accepted.run_id]);
  });

  it('the same key with a different body → 422 idempotency_key_reused, nothing appended', async () => {
    const before = (await t.acceptedDeliveries()).length;
    const result = await send(hook, 'order-1', '{"data":{"order":2}}');
    expectProblem(result, 422, 'idempotency_key_reused');
    expect(await t.acceptedDeliveries()).toHaveLength(before);
  });

  it('the same key with the same bytes but another content type → 422', async () => {
    const result = await send(hook, 'order-1', '{"data":{"order":1}}', 'text/plain');
    expectProblem(result, 422, 'idempotency_key_reused');
  });

  it('the same JSON value re-serialised by a retrying sender (other whitespace, member order, escapes) → 202 replay of the first, nothing appended', async () => {
    const first = await send(hook, 'reserialised', '{"data":{"order":7,"items":["a","é"]},"source":"shop"}');
    expect(first.status).toBe(202);
    const before = (await t.acceptedDeliveries()).length;
    const again = await send(
      hook,
      'reserialised',
      '{\n  "source" : "shop",\n  "data" : { "items" : [ "a", "\\u00e9" ], "order" : 7.0 }\n}',
    );
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await t.acceptedDeliveries()).toHaveLength(before);
  });

  it('a different JSON value under the key (one value changed, deep inside) is still 422', async () => {
    expect((await send(hook, 'deep-change', '{"data":{"a":[1,{"b":"x"}]}}')).status).toBe(202);
    expectProblem(await send(hook, 'deep-change', '{ "data": { "a": [1, {"b": "y"}] } }'), 422, 'idempotency_key_reused');
    // The status line says what the problem's title says (RFC 9110's name, not Node's "Unprocessable Entity").
    const raw = await t.rawRequest(
      'POST',
      t.webhookPath(hook.webhookId),
      { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json', [KEY]: 'deep-change' },
      ['{"data":0}'],
    );
    expect([raw.status, raw.statusMessage, JSON.parse(raw.body.toString('utf8')).title]).toEqual([
      422,
      'Unprocessable Content',
      'Unprocessable Content',
    ]);
  });

  it('a text/plain body is compared byte for byte: the same words with other whitespace → 422', async () => {
    expect((await send(hook, 'text-key', 'disk full', 'text/plain')).status).toBe(202);
    expect((await send(hook, 'text-key', 'disk full', 'text/plain')).headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await send(hook, 'text-key', 'disk  full', 'text/plain'), 422, 'idempotency_key_reused');
  });

  it('keys are scoped to the webhook: the same key on another webhook is a new delivery', async () => {
    const original = (await send(hook, 'order-1')).json as Json;
    const elsewhere = await send(other, 'order-1');
    expect(elsewhere.status).toBe(202);
    expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
    expect((elsewhere.json as Json).delivery_id).not.toBe(original.delivery_id);
    expect(await t.acceptedDeliveries(other.routineId)).toHaveLength(1);
  });

  it('keys are compared exactly: another case is another key', async () => {
    const lower = await send(hook, 'case-key');
    const upper = await send(hook, 'CASE-KEY');
    expect(lower.status).toBe(202);
    expect(upper.status).toBe(202);
    expect(upper.headers.get('idempotent-replayed')).toBeNull();
    expect((upper.json as Json).delivery_id).not.toBe((lower.json as Json).delivery_id);
  });

  it('accepts keys of 1 and 255 visible ASCII characters', async () => {
    expect((await send(hook, '!')).status).toBe(202);
    expect((await send(hook, '~'.repeat(255))).status).toBe(202);
    expect((await send(hook, 'a:b/c?d=e&f#g')).status).toBe(202);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['an inner space', 'order 1'],
    ['a tab', 'order\t1'],
    ['non-ASCII (latin-1)', 'clé'],
  ])('an invalid key (%s) → 400 invalid_idempotency_key, nothing appended', async (_name, key) => {
    const before = (await t.acceptedDeliveries()).length;
    const response = await t.rawRequest(
      'POST',
      t.webhookPath(hook.webhookId),
      { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json', 'content-length': 10, [KEY.toLowerCase()]: key },
      ['{"data":1}'],
    );
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(response.body.toString('utf8'))).toMatchObject({ status: 400, code: 'invalid_idempotency_key' });
    expect(await t.acceptedDeliveries()).toHaveLength(before);
  });

  it('a non-ASCII key sent as UTF-8 bytes → 400 invalid_idempotency_key', async () => {
    const response = await t.rawRequest(
      'POST',
      t.webhookPath(hook.webhookId),
      // The header value goes out as latin-1 of these code units: the UTF-8 bytes of "ключ".
      {
        authorization: `Bearer ${hook.secret}`,
        'content-type': 'application/json',
        'content-length': 10,
        [KEY.toLowerCase()]: Buffer.from('ключ').toString('latin1'),
      },
      ['{"data":1}'],
    );
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body.toString('utf8'))).toMatchObject({ code: 'invalid_idempotency_key' });
  });

  it('20 concurrent identical requests with one key → all 202 with the same delivery_id; one delivery, one run', async () => {
    const target = await t.setupWebhook({ account: hook.account });
    const body = JSON.stringify({ data: { burst: true } });
    const results = await Promise.all(Array.from({ length: 20 }, () => send(target, 'burst-1', body)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(202));
    const ids = new Set(results.map((r) => (r.json as Json).delivery_id));
    const runIds = new Set(results.map((r) => (r.json as Json).run_id));
    expect(ids.size).toBe(1);
    expect(runIds.size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);

    expect(await t.acceptedDeliveries(target.routineId)).toHaveLength(1);
    const [deliveryId] = [...ids];
    await t.waitForDelivery(target.routineId, deliveryId);
    expect(await t.deliveries(target.routineId)).toHaveLength(1);
    const runs = await settledRuns(target.routineId, 1);
    expect(runs).toHaveLength(1);
    expect(runs[0].run_id).toBe([...runIds][0]);
    expect(await t.createdRuns(target.routineId)).toHaveLength(1);
  });

  it('without a key, two identical requests are two deliveries', async () => {
    const target = await t.setupWebhook({ account: hook.account });
    const a = await send(target, undefined);
    const b = await send(target, undefined);
    expect((a.json as Json).delivery_id).not.toBe((b.json as Json).delivery_id);
    expect(await t.acceptedDeliveries(target.routineId)).toHaveLength(2);
  });
});
