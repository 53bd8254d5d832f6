import { parseIdempotencyKey } from './request-headers.rules';
import { replayGuard, type ReplayWindows } from './signed-replay.rules';

const DAY_MS = 24 * 60 * 60 * 1000;
const WINDOWS: ReplayWindows = { idempotencyRetentionMs: DAY_MS, signatureToleranceSeconds: 300 };
const SIGNATURE = `sha256=${'ab12'.repeat(16)}`;
const github = (githubDelivery: string, hubSignature256 = SIGNATURE) => ({ hubSignature256, githubDelivery, githubEvent: 'push' });

describe('replayGuard', () => {
  it('GitHub: the signature is the key, whatever X-GitHub-Delivery says', () => {
    const first = replayGuard('github', github('72d3162e-cc78-11e3-81ab-4c9367dc0958'), '72d3162e-cc78-11e3-81ab-4c9367dc0958', WINDOWS);
    const capture = replayGuard('github', github('another-delivery'), 'another-delivery', WINDOWS);
    expect(first.key).toBeDefined();
    expect(capture).toEqual(first);
    expect(first.key).toContain(SIGNATURE);
  });

  it('GitHub: another body (another signature) is another key', () => {
    const other = `sha256=${'cd34'.repeat(16)}`;
    expect(replayGuard('github', github('d', other), 'd', WINDOWS).key).not.toBe(replayGuard('github', github('d'), 'd', WINDOWS).key);
  });

  it('GitHub: a signature spelt in upper case is the same key (a header form is never a way round it)', () => {
    const upper = `sha256=${'AB12'.repeat(16)}`;
    expect(replayGuard('github', github('d', upper), 'd', WINDOWS).key).toBe(replayGuard('github', github('d'), 'd', WINDOWS).key);
  });

  it('GitHub: the key is never one a caller or provider could send (an idempotency key is visible ASCII only)', () => {
    const { key } = replayGuard('github', github('d'), 'd', WINDOWS);
    expect(typeof parseIdempotencyKey(key)).not.toBe('string');
  });

  it('GitHub: a repeat replays for the idempotency retention, never less than the signature tolerance', () => {
    expect(replayGuard('github', github('d'), 'd', WINDOWS).windowMs).toBe(DAY_MS);
    const shortRetention = { idempotencyRetentionMs: 60_000, signatureToleranceSeconds: 300 };
    expect(replayGuard('github', github('d'), 'd', shortRetention).windowMs).toBe(300_000);
  });

  it.each([
    ['shopify', { shopifyHmacSha256: 'Rk9PYmFyYmF6cXV4K2JhcmZvbz0vYWJjZGVmZ2hpams=', shopifyEventId: 'e1' }, 'shopify-signature Rk9P'],
    ['sentry', { sentryHookSignature: 'ab12'.repeat(16), sentryRequestId: 'r1' }, 'sentry-signature ab12'],
  ] as const)(
    '%s signs neither its delivery id nor a timestamp: the signature is the key, as for GitHub, kept as sent',
    (scheme, headers, prefix) => {
      const first = replayGuard(scheme, headers, 'delivery-1', WINDOWS);
      expect(first.key?.startsWith(prefix)).toBe(true);
      expect(replayGuard(scheme, headers, 'another-delivery', WINDOWS)).toEqual(first);
      expect(typeof parseIdempotencyKey(first.key)).not.toBe('string');
      const shortRetention = { idempotencyRetentionMs: 60_000, signatureToleranceSeconds: 300 };
      expect(replayGuard(scheme, headers, 'd', shortRetention).windowMs).toBe(300_000);
    },
  );

  it('a Shopify signature differing only in case is another key: base64 is case-sensitive (and only one spelling verifies)', () => {
    const signature = 'Rk9PYmFyYmF6cXV4K2JhcmZvbz0vYWJjZGVmZ2hpams=';
    expect(replayGuard('shopify', { shopifyHmacSha256: signature }, 'd', WINDOWS).key).not.toBe(
      replayGuard('shopify', { shopifyHmacSha256: signature.toLowerCase() }, 'd', WINDOWS).key,
    );
  });

  it.each([
    ['stripe', { stripeSignature: 't=1,v1=00' }, 'evt_1'],
    ['standard_webhooks', { webhookId: 'msg_1', webhookSignature: 'v1,x' }, 'msg_1'],
    ['svix', { svixId: 'msg_1', svixSignature: 'v1,x' }, 'msg_1'],
    ['pagerduty', { pagerdutySignature: 'v1=00' }, '01DFNQ2FRPTZRWP3WWX4P1ZRBL'],
    ['linear', { linearSignature: '00', linearDelivery: 'd1' }, 'd1'],
    ['zendesk', { zendeskWebhookSignature: 'x=', zendeskInvocationId: '8350205582' }, '8350205582'],
    ['gitlab', { gitlabToken: 'token', gitlabIdempotencyKey: 'k1' }, 'k1'],
  ] as const)('%s: the delivery id is the key, for the idempotency retention', (scheme, headers, key) => {
    const shortRetention = { idempotencyRetentionMs: 60_000, signatureToleranceSeconds: 300 };
    expect(replayGuard(scheme, headers, key, shortRetention)).toEqual({ key, windowMs: 60_000 });
  });

  it("bearer: the caller's idempotency key, or none (every request new); a GitHub header on a bearer request changes nothing", () => {
    expect(replayGuard(undefined, {}, 'alert-42', WINDOWS)).toEqual({ key: 'alert-42', windowMs: DAY_MS });
    expect(replayGuard(undefined, { hubSignature256: SIGNATURE }, undefined, WINDOWS)).toEqual({ key: undefined, windowMs: DAY_MS });
  });

  it.each([
    ['slack', {}, 'Ev0PV52K21'],
    ['twitch', { twitchMessageId: 'befa7b53' }, 'befa7b53'],
  ] as const)('%s: the signed delivery id (event_id, Twitch-Eventsub-Message-Id) is the key', (scheme, headers, key) => {
    expect(replayGuard(scheme, headers, key, WINDOWS, Buffer.from('{}'))).toEqual({ key, windowMs: DAY_MS });
  });

  it.each(['zoom', 'discord', 'x', 'meta', 'microsoft_graph'] as const)(
    '%s sends no delivery id: the body is the key — a retry signed anew replays, another body does not',
    (scheme) => {
      const body = Buffer.from('{"event":"meeting.started","event_ts":1626230691572}');
      const first = replayGuard(scheme, { zoomSignature: 'v0=aa' }, undefined, WINDOWS, body);
      const retry = replayGuard(scheme, { zoomSignature: 'v0=bb' }, undefined, WINDOWS, Buffer.from(body));
      expect(retry).toEqual(first);
      expect(first.key).toMatch(new RegExp(`^${scheme}-body [0-9a-f]{64}$`));
      expect(typeof parseIdempotencyKey(first.key)).not.toBe('string');
      expect(replayGuard(scheme, {}, undefined, WINDOWS, Buffer.from('{}')).key).not.toBe(first.key);
      // Never less than the signature tolerance: a provider retrying within it is still recognised.
      expect(replayGuard(scheme, {}, undefined, { idempotencyRetentionMs: 60_000, signatureToleranceSeconds: 300 }, body).windowMs).toBe(
        300_000,
      );
    },
  );
});
