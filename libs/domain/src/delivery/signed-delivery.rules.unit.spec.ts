import { parse } from 'lossless-json';
import { signedDeliveryFacts } from './signed-delivery-facts.rules';
import { claimedScheme, refusalCodeOf } from './signed-delivery.rules';

describe('claimedScheme — from the request headers alone', () => {
  const BEARER = 'Bearer whsec_x';

  it('is bearer with an Authorization header and no signature header', () => {
    expect(claimedScheme({}, BEARER)).toBe('bearer');
    expect(claimedScheme({ githubDelivery: 'abc', webhookId: 'msg_1' }, 'Basic x')).toBe('bearer');
    // A delivery id or event header claims nothing: only a provider's signature (or GitLab's token) does.
    expect(
      claimedScheme(
        {
          shopifyEventId: 'e',
          shopifyTopic: 'orders/create',
          gitlabIdempotencyKey: 'k',
          linearDelivery: 'd',
          sentryRequestId: 'r',
          sentryHookResource: 'issue',
          zendeskInvocationId: '1',
          svixId: 'msg_1',
        },
        BEARER,
      ),
    ).toBe('bearer');
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
    [{ shopifyHmacSha256: 'abc=' }, 'shopify'],
    [{ gitlabToken: 'token' }, 'gitlab'],
    [{ linearSignature: '00' }, 'linear'],
    [{ sentryHookSignature: '00' }, 'sentry'],
    [{ pagerdutySignature: 'v1=00' }, 'pagerduty'],
    [{ zendeskWebhookSignature: 'abc=' }, 'zendesk'],
    [{ svixSignature: 'v1,abc=' }, 'svix'],
    [{ webhookSignature: 'v1,abc=', svixSignature: 'v1,abc=' }, 'standard_webhooks'],
    [{ stripeSignature: 't=1,v1=00', shopifyHmacSha256: 'abc=' }, 'stripe'],
    [{ hubSignature256: 'sha256=00', stripeSignature: 't=1,v1=00' }, 'meta'],
    [{ svixSignature: 'v1,abc=', slackSignature: 'v0=00' }, 'svix'],
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

  it('Shopify: X-Shopify-Event-Id (else X-Shopify-Webhook-Id) and X-Shopify-Topic', () => {
    const headers = { shopifyEventId: '98880550-7158-44d4-b7cd-2c97c8a091b5', shopifyWebhookId: 'b54557e4', shopifyTopic: 'orders/create' };
    expect(signedDeliveryFacts('shopify', headers, json('{"id":820982911946154508}'))).toEqual({
      idempotencyKey: '98880550-7158-44d4-b7cd-2c97c8a091b5',
      sender: { scheme: 'shopify', eventType: 'orders/create' },
    });
    expect(signedDeliveryFacts('shopify', { shopifyWebhookId: 'b54557e4', shopifyTopic: 'app/uninstalled' }, json('{}'))).toEqual({
      idempotencyKey: 'b54557e4',
      sender: { scheme: 'shopify', eventType: 'app/uninstalled' },
    });
  });

  it("GitLab: Idempotency-Key (else X-Gitlab-Event-UUID), and the payload's object_kind (else event_name)", () => {
    const key = '908a6d9e-45fd-46c8-97e6-c4f350f219dd';
    expect(signedDeliveryFacts('gitlab', { gitlabIdempotencyKey: key, gitlabEventUuid: 'other' }, json('{"object_kind":"push"}'))).toEqual({
      idempotencyKey: key,
      sender: { scheme: 'gitlab', eventType: 'push' },
    });
    expect(signedDeliveryFacts('gitlab', { gitlabEventUuid: key }, json('{"event_name":"user_add_to_group"}'))).toEqual({
      idempotencyKey: key,
      sender: { scheme: 'gitlab', eventType: 'user_add_to_group' },
    });
  });

  it("Linear: Linear-Delivery and the payload's type", () => {
    expect(signedDeliveryFacts('linear', { linearDelivery: '234d1a4e-b617-4388-90fe-adc3633d6b72' }, json('{"type":"Issue"}'))).toEqual({
      idempotencyKey: '234d1a4e-b617-4388-90fe-adc3633d6b72',
      sender: { scheme: 'linear', eventType: 'Issue' },
    });
  });

  it('Sentry: Request-ID and Sentry-Hook-Resource', () => {
    expect(
      signedDeliveryFacts(
        'sentry',
        { sentryRequestId: '1b1f6e2c-9c3a-4a53-a48e-2f5f3e1f7d10', sentryHookResource: 'event_alert' },
        json('{}'),
      ),
    ).toEqual({ idempotencyKey: '1b1f6e2c-9c3a-4a53-a48e-2f5f3e1f7d10', sender: { scheme: 'sentry', eventType: 'event_alert' } });
  });

  it("PagerDuty: the event's id and event_type, from the signed body", () => {
    const body = '{"event":{"id":"01DFNQ2FRPTZRWP3WWX4P1ZRBL","event_type":"incident.triggered","resource_type":"incident"}}';
    expect(signedDeliveryFacts('pagerduty', {}, json(body))).toEqual({
      idempotencyKey: '01DFNQ2FRPTZRWP3WWX4P1ZRBL',
      sender: { scheme: 'pagerduty', eventType: 'incident.triggered' },
    });
  });

  it("Zendesk: X-Zendesk-Webhook-Invocation-Id; the payload's type when it is an event type, none when a trigger's body has another", () => {
    expect(signedDeliveryFacts('zendesk', { zendeskInvocationId: '8350205582' }, json('{"type":"zen:event-type:ticket.created"}'))).toEqual(
      {
        idempotencyKey: '8350205582',
        sender: { scheme: 'zendesk', eventType: 'zen:event-type:ticket.created' },
      },
    );
    expect(signedDeliveryFacts('zendesk', { zendeskInvocationId: '8350205582' }, json('{"type":"Printer on fire <urgent>"}'))).toEqual({
      idempotencyKey: '8350205582',
      sender: { scheme: 'zendesk', eventType: null },
    });
  });

  it("Svix: svix-id and the payload's type", () => {
    expect(
      signedDeliveryFacts('svix', { svixId: 'msg_2bS4vZ0dfm3QwBwJ0g7hPmbkCyD', webhookId: 'other' }, json('{"type":"user.created"}')),
    ).toEqual({
      idempotencyKey: 'msg_2bS4vZ0dfm3QwBwJ0g7hPmbkCyD',
      sender: { scheme: 'svix', eventType: 'user.created' },
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
    ['shopify', { shopifyTopic: 'orders/create' }, '{}', /X-Shopify-Event-Id/],
    ['gitlab', {}, '{"object_kind":"push"}', /Idempotency-Key/],
    ['gitlab', { gitlabIdempotencyKey: '' }, '{}', /Idempotency-Key/],
    ['linear', {}, '{"type":"Issue"}', /Linear-Delivery/],
    ['sentry', { sentryHookResource: 'issue' }, '{}', /Request-ID/],
    ['pagerduty', {}, '{"event":{"event_type":"incident.triggered"}}', /event\.id/],
    ['pagerduty', {}, '{"id":"top-level-is-not-it"}', /event\.id/],
    ['pagerduty', {}, '{"event":["01DFNQ2FRPTZRWP3WWX4P1ZRBL"]}', /event\.id/],
    ['zendesk', {}, '{}', /X-Zendesk-Webhook-Invocation-Id/],
    ['svix', { webhookId: 'msg_1' }, '{}', /svix-id/],
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
    ['shopify', { shopifyEventId: 'e1', shopifyTopic: 'orders create' }, '{}'],
    ['gitlab', { gitlabIdempotencyKey: 'k1' }, '{"object_kind":"Push Hook"}'],
    ['linear', { linearDelivery: 'd1' }, '{"type":"<Issue>"}'],
    ['sentry', { sentryRequestId: 'r1', sentryHookResource: '' }, '{}'],
    ['pagerduty', {}, '{"event":{"id":"e1","event_type":"incident triggered"}}'],
    ['svix', { svixId: 'msg_1' }, '{"type":"-user.created"}'],
  ] as const)('%s with an event type outside the alphabet is a 400 invalid_event_type', (scheme, headers, body) => {
    expect(signedDeliveryFacts(scheme, headers, json(body))).toMatchObject({ kind: 'rejected', code: 'invalid_event_type' });
  });
});
