/**
 * The signed handshakes over real HTTP — Slack's url_verification, Zoom's endpoint.url_validation,
 * Discord's PINGs, Twitch's webhook_callback_verification — each answered exactly as the provider
 * documents it, with no delivery and no run and a line in the webhook's activity; a signed delivery
 * of each provider accepted (202, one run); and every refusal (unknown id, another scheme's webhook,
 * a bad proof) the one answer, byte for byte: the spec's 404, or for a Discord-signed request the
 * one 401 Discord's documentation asks for. X, Meta and Graph: signed-handshakes-query.int.spec.ts.
 */
import { randomBytes, createHmac, generateKeyPairSync } from 'node:crypto';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { HttpResult, Json } from '../../../test/support/ingress-http.client';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import { signedPoster } from '../../../test/support/signed-delivery.headers';
import {
  SLACK_SECRET,
  TWITCH_SECRET,
  ZOOM_SECRET,
  comparable,
  discordEvent,
  discordHeaders,
  enableProvider,
  seesActivity,
  type ProviderHook,
  slackEvent,
  slackHeaders,
  twitchEvent,
  twitchHeaders,
  zoomEvent,
  zoomHeaders,
} from '../../../test/support/handshake-senders';

type Provider = 'slack' | 'zoom' | 'discord' | 'twitch';
interface Request {
  readonly headers: Record<string, string>;
  readonly body: string;
}
interface Answer {
  readonly status: number;
  readonly contentType?: string;
  readonly text: string;
}

const slackChallenge = '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P';
const plainToken = 'qgg8vlvZRS6UYooatFL8Aw';
const twitchChallenge = `pogchamp-kappa-${randomBytes(4).toString('hex')}`;
const zoomBody = JSON.stringify({ payload: { plainToken }, event_ts: Date.now(), event: 'endpoint.url_validation' });
const otherDiscordKey = generateKeyPairSync('ed25519').privateKey;

/** Per provider: its handshakes and their exact answers, a delivery, and the same handshake with a bad proof. */
const PROVIDERS: Record<Provider, { handshakes: [Request, Answer][]; delivery: () => Request; badProof: Request }> = {
  slack: {
    handshakes: [
      [
        { body: JSON.stringify({ token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge: slackChallenge, type: 'url_verification' }), headers: {} },
        { status: 200, contentType: 'text/plain; charset=utf-8', text: slackChallenge },
      ],
    ],
    delivery: () => signed('slack', slackEvent()),
    badProof: {
      body: JSON.stringify({ challenge: slackChallenge, type: 'url_verification' }),
      headers: slackHeaders('0'.repeat(32), '{}'),
    },
  },
  zoom: {
    handshakes: [
      [
        { body: zoomBody, headers: {} },
        {
          status: 200,
          contentType: 'application/json; charset=utf-8',
          text: JSON.stringify({ plainToken, encryptedToken: createHmac('sha256', ZOOM_SECRET).update(plainToken).digest('hex') }),
        },
      ],
    ],
    delivery: () => signed('zoom', zoomEvent()),
    badProof: { body: zoomBody, headers: zoomHeaders('another-secret-token', zoomBody) },
  },
  discord: {
    handshakes: [
      [
        { body: '{"id":"1","application_id":"2","type":1,"token":"t","version":1}', headers: {} },
        { status: 200, contentType: 'application/json; charset=utf-8', text: '{"type":1}' },
      ],
      [
        { body: '{"version":1,"application_id":"2","type":0}', headers: {} },
        { status: 204, text: '' },
      ],
    ],
    delivery: () => signed('discord', discordEvent()),
    badProof: { body: '{"type":1}', headers: discordHeaders('{"type":1}', otherDiscordKey) },
  },
  twitch: {
    handshakes: [
      [
        {
          body: JSON.stringify({ challenge: twitchChallenge, subscription: { type: 'channel.follow' } }),
          headers: { type: 'webhook_callback_verification' },
        },
        { status: 200, contentType: 'text/plain; charset=utf-8', text: twitchChallenge },
      ],
    ],
    delivery: () => signed('twitch', twitchEvent()),
    badProof: {
      body: JSON.stringify({ challenge: twitchChallenge }),
      headers: twitchHeaders('another twitch secret', JSON.stringify({ challenge: twitchChallenge }), 'webhook_callback_verification'),
    },
  },
};

/** A request signed for `provider` (`headers.type`: Twitch's message type). */
function signed(provider: Provider, body: string, type?: string): Request {
  switch (provider) {
    case 'slack':
      return { body, headers: slackHeaders(SLACK_SECRET, body) };
    case 'zoom':
      return { body, headers: zoomHeaders(ZOOM_SECRET, body) };
    case 'discord':
      return { body, headers: discordHeaders(body) };
    case 'twitch':
      return { body, headers: twitchHeaders(TWITCH_SECRET, body, type === undefined ? 'notification' : 'webhook_callback_verification') };
  }
}

describe('signed handshakes: Slack, Zoom, Discord, Twitch', () => {
  const t = useIngressTestApp();
  const post = signedPoster(t);
  const hooks = {} as Record<Provider, ProviderHook>;
  let bearer: WebhookFixture;

  beforeAll(async () => {
    await t.startDispatcher();
    for (const provider of Object.keys(PROVIDERS) as Provider[]) hooks[provider] = await enableProvider(t, provider);
    bearer = await t.setupWebhook();
  });

  const send = (webhookId: string, request: Request): Promise<HttpResult> => post(webhookId, request.headers, request.body);
  const unknownId = (): string => `whk_${randomBytes(16).toString('base64url')}`;

  describe.each(Object.keys(PROVIDERS) as Provider[])('%s', (provider) => {
    const { handshakes, delivery, badProof } = PROVIDERS[provider];

    it('answers the handshake exactly as documented: no delivery, no run, a line in the activity', async () => {
      const hook = hooks[provider];
      const deliveriesBefore = (await t.acceptedDeliveries(hook.routineId)).length;
      for (const [request, expected] of handshakes) {
        const answer = await send(hook.webhookId, signed(provider, request.body, request.headers.type));
        expect({ status: answer.status, text: answer.text }).toEqual({ status: expected.status, text: expected.text });
        expect(answer.headers.get('content-type') ?? undefined).toBe(expected.contentType);
        expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      }
      await seesActivity(t, hook.routineId, 'handshake_answered');
      expect(await t.acceptedDeliveries(hook.routineId)).toHaveLength(deliveriesBefore);
      expect(await t.createdRuns(hook.routineId)).toHaveLength(0);
    });

    it('accepts a signed delivery: 202, one run, the sender and event type kept', async () => {
      const hook = hooks[provider];
      const accepted = await send(hook.webhookId, delivery());
      expect(accepted.status).toBe(202);
      const { delivery_id: deliveryId, run_id: runId } = accepted.json as Json;
      await t.waitForRun(runId as string);
      const [event] = (await t.acceptedDeliveries(hook.routineId)).filter((e) => (e.data as Json).deliveryId === deliveryId);
      expect((event!.data as Json).sender).toMatchObject({ scheme: provider });
    });

    it("refuses an unknown id, another scheme's webhook and a bad proof with the one answer, byte for byte", async () => {
      const [handshake] = handshakes[0]!;
      const reference = comparable(await send(unknownId(), signed(provider, handshake.body, handshake.headers.type)));
      expect(reference.status).toBe(provider === 'discord' ? 401 : 404);
      const other = provider === 'slack' ? hooks.zoom : hooks.slack;
      for (const [name, webhookId, request] of [
        ['unknown id, a delivery', unknownId(), delivery()],
        ["another scheme's webhook", other.webhookId, signed(provider, handshake.body, handshake.headers.type)],
        ['a bearer webhook', bearer.webhookId, delivery()],
        ['a bad proof', hooks[provider].webhookId, badProof],
      ] as const) {
        expect({ name, answer: comparable(await send(webhookId, request)) }).toEqual({ name, answer: reference });
      }
      // The owner sees why: the handshake's failed proof, and the other scheme's attempt.
      await seesActivity(t, hooks[provider].routineId, 'handshake_refused');
      await seesActivity(t, other.routineId, 'wrong_scheme');
    });
  });

  it('a disabled webhook answers no handshake: the one refusal, and a line saying so', async () => {
    const hook = await enableProvider(t, 'slack');
    await t.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/disable`, undefined, 200);
    const [handshake] = PROVIDERS.slack.handshakes[0]!;
    const reference = comparable(await send(unknownId(), signed('slack', handshake.body)));
    expect(comparable(await send(hook.webhookId, signed('slack', handshake.body)))).toEqual(reference);
    await seesActivity(t, hook.routineId, 'webhook_disabled');
  });
});
