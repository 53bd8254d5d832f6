import { parse } from 'lossless-json';
import { claimedScheme, signedDeliveryFacts } from './signed-delivery.rules';

describe('claimedScheme — from the request headers alone', () => {
  it('is bearer without a signature header', () => {
    expect(claimedScheme({})).toBe('bearer');
    expect(claimedScheme({ githubDelivery: 'abc', webhookId: 'msg_1' })).toBe('bearer');
  });

  it.each([
    [{ webhookSignature: 'v1,x' }, 'standard_webhooks'],
    [{ hubSignature256: 'sha256=00' }, 'github'],
    [{ stripeSignature: 't=1,v1=00' }, 'stripe'],
    [{ webhookSignature: '', hubSignature256: 'sha256=00' }, 'standard_webhooks'],
    [{ hubSignature256: 'sha256=00', stripeSignature: 't=1,v1=00' }, 'github'],
  ] as const)('%j claims %s (an empty header still claims: it is then a failed signature)', (headers, scheme) => {
    expect(claimedScheme(headers)).toBe(scheme);
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
