/**
 * The rows of signed-cost.mjs: per row a name, the status it must answer and a request (static,
 * `next()` per request, or `make()` signed when the run starts), built on the client side with
 * signers.mjs. See signed-cost.mjs for what each row measures.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  SIGNED_SCHEMES,
  eventBody,
  eventBodyFor,
  githubSignature,
  handshakeRequest,
  nowSeconds,
  signedDelivery,
  standardSignature,
  stripeSignature,
} from './signers.mjs';
import { refusalStatus } from './timing-signed.mjs';

export const SMALL = 1024;
export const LARGE = 256 * 1024;

const unknownPath = (hook) =>
  `/workflow-webhooks/wh_${randomBytes(hook.webhookId.length)
    .toString('base64url')
    .slice(0, hook.webhookId.length - 3)}`;

/** The providers whose rows are built alike (signedDelivery): every signed scheme but the three with rows of their own. */
const PROVIDER_SCHEMES = SIGNED_SCHEMES.filter((scheme) => !['github', 'stripe', 'standard_webhooks'].includes(scheme));

/**
 * An event body of `bytes` bytes (in the scheme's shape) whose id (`id`, and Slack's `event_id`) is
 * replaced per request: the text around a fixed-length id.
 */
function idTemplate(bytes, scheme = 'stripe') {
  const marker = `evt_${'0'.repeat(24)}`;
  const parts = eventBodyFor(scheme, bytes, marker).split(marker);
  const run = randomBytes(4).toString('hex');
  let counter = 0;
  return () => {
    const id = `evt_${run}${(counter++).toString(16).padStart(16, '0')}`;
    return { id, body: parts.join(id) };
  };
}

/** The rows: name, expected status, and a request (static, or `next()` per request). */
export function rows(hooks) {
  const json = { 'content-type': 'application/json' };
  const small = eventBody(SMALL);
  const large = eventBody(LARGE);
  const smallEvents = idTemplate(SMALL);
  // A GitHub delivery is recognised by its signature: a new body (and so a new signature) per request.
  const githubEvents = idTemplate(SMALL);
  const github = (path) => ({
    path,
    body: small,
    next: () => {
      const { body } = githubEvents();
      const signature = githubSignature(hooks.github.secret, body);
      return { body, headers: { ...json, 'x-github-delivery': randomUUID(), 'x-github-event': 'push', 'x-hub-signature-256': signature } };
    },
  });
  const githubStatic = (path, body) => {
    const headers = {
      ...json,
      'x-github-delivery': randomUUID(),
      'x-github-event': 'push',
      'x-hub-signature-256': githubSignature(hooks.github.secret, body),
    };
    return { path, body, headers };
  };
  const stripe404 = (path, body) => ({
    path,
    body,
    make: () => ({ headers: { ...json, 'stripe-signature': stripeSignature(hooks.stripe.secret, body, nowSeconds()) } }),
  });
  const standardHeaders = (secret, messageId, seconds, body) => ({
    ...json,
    'webhook-id': messageId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': standardSignature(secret, messageId, seconds, body),
  });
  const standard404 = (path, body) => {
    const messageId = `msg_${randomBytes(18).toString('base64url')}`;
    return { path, body, make: () => ({ headers: standardHeaders(hooks.standard_webhooks.secret, messageId, nowSeconds(), body) }) };
  };
  const bearerHeaders = { ...json, authorization: `Bearer ${hooks.bearer.secret}` };
  const messageRun = randomBytes(4).toString('hex');
  let messages = 0;
  let keys = 0;
  return [
    { name: 'bearer_202', status: 202, request: { path: hooks.bearer.path, headers: bearerHeaders, body: small } },
    // A signed delivery is always keyed (its provider's delivery id): the bearer delivery that does the same idempotency work.
    {
      name: 'bearer_202_keyed',
      status: 202,
      request: {
        path: hooks.bearer.path,
        body: small,
        next: () => ({
          headers: { ...bearerHeaders, 'x-service-idempotency-key': `key_${messageRun}${(keys++).toString(16).padStart(16, '0')}` },
        }),
      },
    },
    { name: 'github_202', status: 202, request: github(hooks.github.path) },
    {
      name: 'stripe_202',
      status: 202,
      request: {
        path: hooks.stripe.path,
        body: small,
        next: () => {
          const { body } = smallEvents();
          return { body, headers: { ...json, 'stripe-signature': stripeSignature(hooks.stripe.secret, body, nowSeconds()) } };
        },
      },
    },
    {
      name: 'standard_webhooks_202',
      status: 202,
      request: {
        path: hooks.standard_webhooks.path,
        body: small,
        next: () => {
          const messageId = `msg_${messageRun}${(messages++).toString(16).padStart(16, '0')}`;
          return { headers: standardHeaders(hooks.standard_webhooks.secret, messageId, nowSeconds(), small) };
        },
      },
    },
    { name: 'standard_webhooks_replay', status: 202, request: standard404(hooks.standard_webhooks.path, small) },
    { name: 'bearer_404', status: 404, request: { path: unknownPath(hooks.bearer), headers: bearerHeaders, body: small } },
    { name: 'github_404', status: 404, request: githubStatic(unknownPath(hooks.github), small) },
    { name: 'stripe_404', status: 404, request: stripe404(unknownPath(hooks.stripe), small) },
    { name: 'standard_webhooks_404', status: 404, request: standard404(unknownPath(hooks.standard_webhooks), small) },
    { name: 'bearer_404_256k', status: 404, request: { path: unknownPath(hooks.bearer), headers: bearerHeaders, body: large } },
    { name: 'github_404_256k', status: 404, request: githubStatic(unknownPath(hooks.github), large) },
    { name: 'stripe_404_256k', status: 404, request: stripe404(unknownPath(hooks.stripe), large) },
    { name: 'standard_webhooks_404_256k', status: 404, request: standard404(unknownPath(hooks.standard_webhooks), large) },
    ...PROVIDER_SCHEMES.flatMap((scheme) => providerRows(scheme, hooks[scheme])),
    ...handshakeRows(hooks),
  ];
}

/**
 * A provider's rows: a 202 (a new delivery id and body per request, signed when built), and its one
 * refusal (404; Discord's 401) to an unknown id with a ~1 KiB and a 256 KiB body (signed when the
 * run starts). Not Graph's 256 KiB one: its notification wraps the body, past the limit (a 413).
 */
function providerRows(scheme, hook) {
  const events = idTemplate(SMALL, scheme);
  const signedNow = (body, id) => signedDelivery(scheme, { secret: hook.secret, body, seconds: nowSeconds(), id });
  const unknown404 = (bytes) => {
    const body = eventBodyFor(scheme, bytes);
    const id = randomUUID();
    return { path: unknownPath(hook), body, make: () => signedNow(body, id) };
  };
  const refused = refusalStatus(scheme);
  return [
    {
      name: `${scheme}_202`,
      status: 202,
      request: {
        path: hook.path,
        body: events().body,
        next: () => {
          const { id, body } = events();
          return signedNow(body, id);
        },
      },
    },
    { name: `${scheme}_${refused}`, status: refused, request: unknown404(SMALL) },
    ...(scheme === 'microsoft_graph' ? [] : [{ name: `${scheme}_${refused}_256k`, status: refused, request: unknown404(LARGE) }]),
  ];
}

/** The handshakes the service answers itself (200, no delivery, no run): Slack's url_verification, X's CRC, Graph's validation. */
function handshakeRows(hooks) {
  // Signed when each run starts, as the refusals are: Slack's timestamp would be past the tolerance by a later round.
  const handshake = (name, scheme, path) => ({
    name,
    status: 200,
    request: {
      path,
      make: () => {
        const request = handshakeRequest(scheme, hooks[scheme].secret, nowSeconds());
        return {
          path: `${path}${request.query}`,
          headers: request.headers,
          body: request.body,
          ...(request.method ? { method: request.method } : {}),
        };
      },
    },
  });
  return [
    handshake('slack_handshake_200', 'slack', hooks.slack.path),
    handshake('x_crc_200', 'x', unknownPath(hooks.x)),
    handshake('microsoft_graph_validation_200', 'microsoft_graph', unknownPath(hooks.microsoft_graph)),
  ];
}
