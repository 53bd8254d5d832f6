/**
 * The handshakes read from the query over real HTTP — X's CRC, Meta's subscription check,
 * Microsoft Graph's validation — answered exactly as each provider documents it, with no delivery
 * and no run and a line in the webhook's activity; each provider's delivery accepted (202); and the
 * refusals: Meta's bad verify token, unknown id or other scheme is the one 404 byte for byte, as is
 * any GET, HEAD or OPTIONS that is no handshake. X's CRC and Graph's validation carry no proof: they
 * are answered for every id (X's under a decoy secret), so the answer tells nothing about the id.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { HttpResult, Json } from '../../../test/support/ingress-http.client';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import { githubHeaders, signedPoster } from '../../../test/support/signed-delivery.headers';
import {
  GRAPH_CLIENT_STATE,
  META_APP_SECRET,
  META_VERIFY_TOKEN,
  X_SECRET,
  comparable,
  enableProvider,
  graphEvent,
  graphHeaders,
  metaEvent,
  metaHeaders,
  seesActivity,
  xEvent,
  xHeaders,
  type ProviderHook,
} from '../../../test/support/handshake-senders';

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

describe('query handshakes: X, Meta, Microsoft Graph', () => {
  const t = useIngressTestApp();
  const post = signedPoster(t);
  let x: ProviderHook;
  let meta: ProviderHook;
  let graph: ProviderHook;
  let bearer: WebhookFixture;
  let unknownAnswer: HttpResult;

  const unknownId = (): string => `whk_${randomBytes(16).toString('base64url')}`;
  const get = (webhookId: string, query: string): Promise<HttpResult> => t.http('GET', `${t.webhookPath(webhookId)}${query}`);
  const metaQuery = (token: string, challenge = '1158201444'): string =>
    `?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(token)}&hub.challenge=${challenge}`;
  const crc = (token: string): string => `?crc_token=${encodeURIComponent(token)}`;

  /** No delivery, no run: the handshake left the store as it was. */
  async function expectNothingCreated(hook: ProviderHook, work: () => Promise<unknown>): Promise<void> {
    const before = (await t.acceptedDeliveries(hook.routineId)).length;
    await work();
    expect(await t.acceptedDeliveries(hook.routineId)).toHaveLength(before);
    expect(await t.createdRuns(hook.routineId)).toHaveLength(0);
  }

  beforeAll(async () => {
    await t.startDispatcher();
    x = await enableProvider(t, 'x');
    meta = await enableProvider(t, 'meta');
    graph = await enableProvider(t, 'microsoft_graph');
    bearer = await t.setupWebhook();
    unknownAnswer = await post(unknownId(), { 'content-type': 'application/json', authorization: 'Bearer whsec_x' }, '{}');
    expect(unknownAnswer.status).toBe(404);
  });

  describe('X (Twitter)', () => {
    it('answers the CRC with {"response_token": "sha256=" + base64 HMAC-SHA256(consumer secret, crc_token)}', async () => {
      const token = '9b4507b3-9040-4669-9ca3-6b94edb50553';
      await expectNothingCreated(x, async () => {
        const answer = await get(x.webhookId, crc(token));
        expect(answer.status).toBe(200);
        expect(answer.headers.get('content-type')).toBe(JSON_TYPE);
        expect(answer.text).toBe(
          JSON.stringify({ response_token: `sha256=${createHmac('sha256', X_SECRET).update(token).digest('base64')}` }),
        );
      });
      await seesActivity(t, x.routineId, 'handshake_answered');
    });

    it('answers a CRC to any other id too — under a decoy secret, so the answer tells nothing about the id', async () => {
      const real = `sha256=${createHmac('sha256', X_SECRET).update('t').digest('base64')}`;
      for (const webhookId of [unknownId(), bearer.webhookId, meta.webhookId]) {
        const answer = await get(webhookId, crc('t'));
        expect({ status: answer.status, type: answer.headers.get('content-type') }).toEqual({ status: 200, type: JSON_TYPE });
        expect((answer.json as Json).response_token).toMatch(/^sha256=[A-Za-z0-9+/]{43}=$/);
        expect((answer.json as Json).response_token).not.toBe(real);
      }
      await seesActivity(t, bearer.routineId, 'wrong_scheme');
    });

    it('accepts a signed delivery (202, one run); a bad signature is the one 404', async () => {
      const body = xEvent();
      const accepted = await post(x.webhookId, xHeaders(X_SECRET, body), body);
      expect(accepted.status).toBe(202);
      await t.waitForRun((accepted.json as Json).run_id as string);
      expect(comparable(await post(x.webhookId, xHeaders('another-consumer-secret', body), body))).toEqual(comparable(unknownAnswer));
      expect(comparable(await post(unknownId(), xHeaders(X_SECRET, body), body))).toEqual(comparable(unknownAnswer));
    });
  });

  describe('Meta', () => {
    it('answers hub.challenge as text when hub.verify_token is the webhook’s', async () => {
      await expectNothingCreated(meta, async () => {
        const answer = await get(meta.webhookId, metaQuery(META_VERIFY_TOKEN));
        expect({ status: answer.status, type: answer.headers.get('content-type'), text: answer.text }).toEqual({
          status: 200,
          type: TEXT,
          text: '1158201444',
        });
      });
      await seesActivity(t, meta.routineId, 'handshake_answered');
    });

    it('refuses another verify token, an unknown id and another scheme’s webhook with the one 404, byte for byte', async () => {
      for (const [name, webhookId, token] of [
        ['another verify token', meta.webhookId, `${META_VERIFY_TOKEN}x`],
        ['unknown id', unknownId(), META_VERIFY_TOKEN],
        ["another scheme's webhook", x.webhookId, META_VERIFY_TOKEN],
        ['hub.mode not subscribe', meta.webhookId, META_VERIFY_TOKEN],
      ] as const) {
        const query = name === 'hub.mode not subscribe' ? metaQuery(token).replace('subscribe', 'unsubscribe') : metaQuery(token);
        expect({ name, answer: comparable(await get(webhookId, query)) }).toEqual({ name, answer: comparable(unknownAnswer) });
      }
      await seesActivity(t, meta.routineId, 'handshake_refused');
    });

    it("accepts a delivery signed with the App Secret; GitHub's form of the same header (X-GitHub-Event) is another scheme", async () => {
      const body = metaEvent();
      const accepted = await post(meta.webhookId, await metaHeaders(META_APP_SECRET, body), body);
      expect(accepted.status).toBe(202);
      const [event] = (await t.acceptedDeliveries(meta.routineId)).filter(
        (e) => (e.data as Json).deliveryId === (accepted.json as Json).delivery_id,
      );
      expect((event!.data as Json).sender).toEqual({ scheme: 'meta', eventType: 'page' });
      expect(comparable(await post(meta.webhookId, await githubHeaders(META_APP_SECRET, body), body))).toEqual(comparable(unknownAnswer));
      expect(comparable(await post(meta.webhookId, await metaHeaders('another-app-secret', body), body))).toEqual(
        comparable(unknownAnswer),
      );
    });
  });

  describe('Microsoft Graph', () => {
    const token = 'Validation: Testing client application reachability for subscription Request-Id: 7f6f9a2c';
    const validation = `?validationToken=${encodeURIComponent(token)}`;

    it('echoes the validationToken (URL-decoded) as text, on a POST as Graph sends it and on a GET', async () => {
      await expectNothingCreated(graph, async () => {
        for (const answer of [
          await t.http('POST', `${t.webhookPath(graph.webhookId)}${validation}`, {
            headers: { 'content-type': 'text/plain; charset=utf-8' },
            body: '',
          }),
          await get(graph.webhookId, validation),
        ]) {
          expect({ status: answer.status, type: answer.headers.get('content-type'), text: answer.text }).toEqual({
            status: 200,
            type: TEXT,
            text: token,
          });
          expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
        }
      });
      await seesActivity(t, graph.routineId, 'handshake_answered');
    });

    it('answers the validation for any id alike (it carries no proof): nothing to tell ids apart by', async () => {
      const reference = comparable(await get(graph.webhookId, validation));
      for (const webhookId of [unknownId(), bearer.webhookId, x.webhookId]) {
        expect(comparable(await get(webhookId, validation))).toEqual(reference);
      }
    });

    it('accepts a notification carrying the clientState; another clientState, or none, is the one 404', async () => {
      const accepted = await post(graph.webhookId, graphHeaders(), graphEvent(GRAPH_CLIENT_STATE));
      expect(accepted.status).toBe(202);
      await t.waitForRun((accepted.json as Json).run_id as string);
      const wrong = graphEvent('another-client-state');
      expect(comparable(await post(graph.webhookId, graphHeaders(), wrong))).toEqual(comparable(unknownAnswer));
      expect(comparable(await post(unknownId(), graphHeaders(), graphEvent(GRAPH_CLIENT_STATE)))).toEqual(comparable(unknownAnswer));
      // A bearer webhook sent no Authorization: the one 404, recorded as the missing secret it is.
      expect(comparable(await post(bearer.webhookId, graphHeaders(), graphEvent(GRAPH_CLIENT_STATE)))).toEqual(comparable(unknownAnswer));
      await seesActivity(t, bearer.routineId, 'wrong_secret');
    });
  });

  it('a GET, HEAD or OPTIONS that is no handshake is the one 404', async () => {
    for (const webhookId of [x.webhookId, meta.webhookId, graph.webhookId, unknownId()]) {
      expect(comparable(await get(webhookId, ''))).toEqual(comparable(unknownAnswer));
      expect(comparable(await get(webhookId, '?crc=1&hub.challenge=2'))).toEqual(comparable(unknownAnswer));
      expect(comparable(await t.http('OPTIONS', t.webhookPath(webhookId)))).toEqual(comparable(unknownAnswer));
      expect((await t.http('HEAD', t.webhookPath(webhookId))).status).toBe(404);
    }
  });
});
