import { parse } from 'lossless-json';
import { claimedScheme, refusalCodeOf, signedDeliveryFacts } from './signed-delivery.rules';

describe('claimedScheme — from the request headers alone', () => {
  const BEARER = 'Bearer whsec_x';

  it('is bearer with an Authorization header and no signature header', () => {
    expect(claimedScheme({}, BEARER)).toBe('bearer');
    expect(claimedScheme({ githubDelivery: 'abc', webhookId: 'msg_1' }, 'Basic x')).toBe('bearer');
  });

  it("is Microsoft Graph's with neither: such a request's only proof is in its body (clientState)", () => {
    expect(claimedScheme({})).toBe('microsoft_graph');
    expect(claimedScheme({ githubDelivery: 'abc', twitchMessageId: 'm' })).toBe('microsoft_graph');
  });

  it.each([
    [{ webhookSignature: 'v1,x' }, 'standard_webhooks'],
    [{ hubSignature256: 'sha256=00', githubEvent: 'push' }, 'github'],
    [{ hubSignature256: 'sha256=00', githubDelivery: 'd' }, 'github'],
    [{ hubSignature256: 'sha256=00' }, 'meta'],
    [{ stripeSignature: 't=1,v1=00' }, 'stripe'],
    [{ slackSignature: 'v0=00' }, 'slack'],
    [{ zoomSignature: 'v0=00' }, 'zoom'],
    [{ discordSignature: '00' }, 'discord'],
    [{ twitchSignature: 'sha256=00' }, 'twitch'],
    [{ xSignature: 'sha256=AA==' }, 'x'],
    [{ webhookSignature: '', hubSignature256: 'sha256=00' }, 'standard_webhooks'],
    [{ hubSignature256: 'sha256=00', githubEvent: 'push', stripeSignature: 't=1,v1=00' }, 'github'],
    [{ slackSignature: '', zoomSignature: 'v0=00' }, 'slack'],
  ] as const)('%j claims %s whatever Authorization says (an empty header still claims: a failed signature)', (headers, scheme) => {
    expect(claimedScheme(headers, BEARER)).toBe(scheme);
    expect(claimedScheme(headers)).toBe(scheme);
  });

  it('refuses a Discord-signed request with its one 401, every other with the one 404', () => {
    expect(refusalCodeOf('discord')).toBe('webhook_unauthorized');
    for (const scheme of ['bearer', 'github', 'slack', 'meta', 'microsoft_graph'] as const)
      expect(refusalCodeOf(scheme)).toBe('webhook_not_found');
  });
});

describe('signedDeliveryFacts — the providers with a handshake', () => {
  const json = (text: string): unknown => parse(text);

  it("Slack: the event's event_id is the idempotency key, the inner event's type the event type", () => {
    const body = '{"type":"event_callback","event_id":"Ev0PV52K21","event":{"type":"app_mention","text":"hi"}}';
    expect(signedDeliveryFacts('slack', {}, json(body))).toEqual({
      idempotencyKey: 'Ev0PV52K21',
      sender: { scheme: 'slack', eventType: 'app_mention' },
    });
    expect(signedDeliveryFacts('slack', {}, json('{"type":"event_callback"}'))).toMatchObject({ code: 'invalid_delivery_id' });
  });

  it("Twitch: Twitch-Eventsub-Message-Id (signed) is the key, the subscription's type the event type", () => {
    const body = '{"subscription":{"type":"channel.follow","version":"2"},"event":{}}';
    expect(signedDeliveryFacts('twitch', { twitchMessageId: 'befa7b53-d79d-478f-86b9-120f112b044e' }, json(body))).toEqual({
      idempotencyKey: 'befa7b53-d79d-478f-86b9-120f112b044e',
      sender: { scheme: 'twitch', eventType: 'channel.follow' },
    });
    expect(signedDeliveryFacts('twitch', {}, json(body))).toMatchObject({ code: 'invalid_delivery_id' });
  });

  it.each([
    ['zoom', '{"event":"meeting.started","event_ts":1626230691572,"payload":{}}', 'meeting.started'],
    [
      'discord',
      '{"version":1,"application_id":"1","type":1,"event":{"type":"APPLICATION_AUTHORIZED","data":{}}}',
      'APPLICATION_AUTHORIZED',
    ],
    ['x', '{"for_user_id":"2244994945","tweet_create_events":[{}]}', 'tweet_create_events'],
    ['meta', '{"object":"page","entry":[{"id":"1","time":1520383571}]}', 'page'],
    ['microsoft_graph', '{"value":[{"changeType":"created","clientState":"s","resource":"Users/x/Messages/y"}]}', 'created'],
    ['microsoft_graph', '{"value":[{"lifecycleEvent":"reauthorizationRequired","clientState":"s"}]}', 'reauthorizationRequired'],
    ['zoom', '{"payload":{}}', null],
  ] as const)('%s sends no delivery id (the body is the replay key) and its event type is read from %s', (scheme, body, eventType) => {
    expect(signedDeliveryFacts(scheme, {}, json(body))).toEqual({ idempotencyKey: undefined, sender: { scheme, eventType } });
  });
});

describe('signedDeliveryFacts', () => {
  const json = (text: string): unknown => parse(text);

  it('GitHub: X-GitHub-Delivery is the idempotency key and X-GitHub-Event the event type', () => {
    expect(
      signedDeliveryFacts('github', { githubDelivery: '72d3162e-cc78-11e3-81ab-4c9367dc0958', githubEvent: 'push' }, json('{"ref":"x"}')),
    ).toEqual({ idempotencyKey: '72d3162e-cc78-11e3-81ab-4c9367dc0958', sender: { scheme: 'github', eventType: 'push' } });
  });

  it("Stripe: the event's id and type, from the body", () => {
    expect(signedDeliveryFacts('stripe', {}, json('{"id":"evt_1NG8Du2eZvKYlo2CUI79vXWy","type":"payment_intent.succeeded"}'))).toEqual({
      idempotencyKey: 'evt_1NG8Du2eZvKYlo2CUI79vXWy',
      sender: { scheme: 'stripe', eventType: 'payment_intent.succeeded' },
    });
  });

  it("Standard Webhooks: webhook-id, and the payload's type when it has one", () => {
    expect(
      signedDeliveryFacts('standard_webhooks', { webhookId: 'msg_p5jXN8AQM9LWM0D4loKWxJek' }, json('{"type":"user.created"}')),
    ).toEqual({
      idempotencyKey: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      sender: { scheme: 'standard_webhooks', eventType: 'user.created' },
    });
    expect(signedDeliveryFacts('standard_webhooks', { webhookId: 'msg_1' }, undefined)).toEqual({
      idempotencyKey: 'msg_1',
      sender: { scheme: 'standard_webhooks', eventType: null },
    });
    expect(signedDeliveryFacts('standard_webhooks', { webhookId: 'msg_1' }, json('{"type":42}'))).toMatchObject({
      sender: { eventType: null },
    });
  });

  it.each([
    ['github', {}, '{}', /X-GitHub-Delivery/],
    ['github', { githubDelivery: 'has space' }, '{}', /X-GitHub-Delivery/],
    ['github', { githubDelivery: 'x'.repeat(256) }, '{}', /X-GitHub-Delivery/],
    ['stripe', {}, '{"type":"charge.failed"}', /Stripe event's id/],
    ['stripe', {}, '[1,2]', /Stripe event's id/],
    ['stripe', {}, '{"id":12}', /Stripe event's id/],
    ['standard_webhooks', {}, '{}', /webhook-id/],
  ] as const)('%s without a usable delivery id (%j, %s) is a 400 invalid_delivery_id', (scheme, headers, body, message) => {
    const facts = signedDeliveryFacts(scheme, headers, json(body));
    expect(facts).toMatchObject({ kind: 'rejected', code: 'invalid_delivery_id' });
    expect(facts).toHaveProperty('detail', expect.stringMatching(message));
  });

  it.each([
    ['github', { githubDelivery: 'd1', githubEvent: 'push<script>' }, '{}'],
    ['github', { githubDelivery: 'd1', githubEvent: '' }, '{}'],
    ['stripe', {}, '{"id":"evt_1","type":"line\\nbreak"}'],
    ['standard_webhooks', { webhookId: 'msg_1' }, `{"type":"${'t'.repeat(129)}"}`],
  ] as const)('%s with an event type outside the alphabet is a 400 invalid_event_type', (scheme, headers, body) => {
    expect(signedDeliveryFacts(scheme, headers, json(body))).toMatchObject({ kind: 'rejected', code: 'invalid_event_type' });
  });
});
