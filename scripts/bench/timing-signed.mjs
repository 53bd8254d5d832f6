/* global Buffer, setTimeout */
/**
 * The signed families of the timing test (timing.mjs): per scheme (SIGNED_SCHEMES: GitHub, Stripe,
 * Standard Webhooks, Shopify, GitLab, Linear, Sentry, PagerDuty, Zendesk, Svix, and the providers
 * with a handshake: Slack, Zoom, Discord, Twitch, X, Meta, Microsoft Graph) the ways a signed
 * request is refused with the one 404 (Discord's: the one 401), as requests of the same size
 * in bytes — the same ~1 KiB body, the same header names, values of the same lengths, ids of the
 * same length — so that what differs between them is the server's work only.
 *
 *   unknown_endpoint   an unknown id, signed with the enabled webhook's secret (a real delivery sent elsewhere)
 *   disabled_endpoint  a disabled webhook of the scheme, a valid signature under its secret
 *   bad_signature      the enabled webhook, a signature of the right form under another secret
 *   other_scheme       an enabled webhook of another scheme, a valid-looking signature
 *   stale_timestamp    (the schemes that sign a time: TIMESTAMPED_SCHEMES) the enabled webhook, a
 *                      correct signature over a timestamp 10 minutes old (Twitch, whose window is
 *                      10 minutes: 15)
 *   unknown_stale      the same with an unknown id
 *   bearer_webhook     (Microsoft Graph only) the bearer family's enabled webhook: a request with no
 *                      Authorization and no signature header is checked as a Graph notification
 *                      whatever the endpoint, so the spec's "no Authorization header" 404 is timed
 *                      here, against requests of its own shape (docs/timing.md)
 *
 * A stale timestamp is refused before any HMAC is computed, for a known and an unknown id alike
 * (the verifier's order depends on the request only), so stale_timestamp is compared with
 * unknown_stale, not with the fresh kinds: the caller chose the timestamp and knows it.
 * Timestamps are taken when each request is built (the tolerance is 5 minutes, a run is longer).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { admin, disableWebhook, setUpWebhook } from './bench-kit.mjs';
import { SIGNED_SCHEMES, TIMESTAMPED_SCHEMES, eventBodyFor, nowSeconds, signedDelivery, strangerSecret } from './signers.mjs';
import { HANDSHAKE_SCHEMES, credential } from './handshake-signers.mjs';

export { SIGNED_SCHEMES };

const FRESH_KINDS = ['unknown_endpoint', 'disabled_endpoint', 'bad_signature', 'other_scheme'];
const STALE_KINDS = ['stale_timestamp', 'unknown_stale'];
/** Past the 5-minute tolerance (WEBHOOK_SIGNATURE_TOLERANCE_SECONDS' default) with room to spare. */
export const STALE_BY_SECONDS = 600;
/** Twitch's window is never less than 10 minutes: its stale requests are older still. */
const STALE_BY = (scheme) => (scheme === 'twitch' ? 900 : STALE_BY_SECONDS);
export const SIGNED_BODY_BYTES = 1024;

/** Which webhook each scheme's other_scheme kind is sent to: a bearer one, and signed ones of another scheme. */
const OTHER_SCHEME_TARGET = {
  github: 'bearer',
  stripe: 'standard_webhooks',
  standard_webhooks: 'github',
  shopify: 'stripe',
  gitlab: 'shopify',
  linear: 'sentry',
  sentry: 'linear',
  pagerduty: 'zendesk',
  zendesk: 'pagerduty',
  svix: 'standard_webhooks',
  slack: 'stripe',
  zoom: 'slack',
  discord: 'github',
  twitch: 'x',
  x: 'twitch',
  meta: 'github',
  // Not bearer: a request with no Authorization to a bearer webhook is its own kind (bearer_webhook).
  microsoft_graph: 'slack',
};

/** The one refusal's status: Discord's is a 401 (docs/signed-senders.md), every other a 404. */
export const refusalStatus = (scheme) => (scheme === 'discord' ? 401 : 404);

/** What the owner's rejected-attempts list must say for a kind sent to a known webhook (the preflight). */
const EXPECTED_REASON = {
  disabled_endpoint: 'webhook_disabled',
  bad_signature: 'signature_mismatch',
  other_scheme: 'wrong_scheme',
  bearer_webhook: 'wrong_secret',
  stale_timestamp: 'timestamp_outside_tolerance',
};

/** The kinds sent without a timestamp of their own: Graph's include a bearer webhook (no Authorization sent to it). */
function freshKinds(scheme) {
  return scheme === 'microsoft_graph' ? [...FRESH_KINDS, 'bearer_webhook'] : FRESH_KINDS;
}

export function signedKinds(scheme) {
  return TIMESTAMPED_SCHEMES.includes(scheme) ? [...freshKinds(scheme), ...STALE_KINDS] : freshKinds(scheme);
}

/** The pairs compared: every pair of fresh kinds, and stale_timestamp with unknown_stale. */
export function signedPairs(scheme) {
  const pairs = [];
  const fresh = freshKinds(scheme);
  for (let i = 0; i < fresh.length; i++) for (let j = i + 1; j < fresh.length; j++) pairs.push([fresh[i], fresh[j]]);
  if (TIMESTAMPED_SCHEMES.includes(scheme)) pairs.push(['stale_timestamp', 'unknown_stale']);
  return pairs;
}

/** A pasted secret of the scheme's form (strangerSecret); none for Standard Webhooks (made). */
export function pastedSecret(scheme) {
  return enableCredential(scheme).fields;
}

/**
 * What enabling a webhook of `scheme` pastes (`fields`, beside `scheme`) and what then signs its
 * requests (`key`; undefined for Standard Webhooks: the answer's made secret).
 */
export function enableCredential(scheme) {
  if (HANDSHAKE_SCHEMES.includes(scheme)) return credential(scheme);
  if (scheme === 'standard_webhooks') return { fields: {}, key: undefined };
  const secret = strangerSecret(scheme);
  return { fields: { secret }, key: secret };
}

/** Enables a webhook of `scheme` with `setUp(label, verification)`; its `secret` is what signs for it. */
export async function enableSigned(setUp, label, scheme) {
  const made = enableCredential(scheme);
  const hook = await setUp(label, { scheme, ...made.fields });
  return made.key === undefined ? hook : { ...hook, secret: made.key };
}

function unknownIdLike(webhookId) {
  return `wh_${randomBytes(webhookId.length)
    .toString('base64url')
    .slice(0, webhookId.length - 3)}`;
}

/**
 * Per kind of a scheme: where it goes (`path`), the secret it is signed with, and how old its
 * timestamp is (`age`, seconds). `hooks` holds `bearer`, and per scheme `<scheme>` (enabled) and
 * `<scheme>_disabled`, each { webhookId, path, secret, routineId }.
 */
export function signedPlan(scheme, hooks) {
  const enabled = hooks[scheme];
  const disabled = hooks[`${scheme}_disabled`];
  const unknownPath = `/workflow-webhooks/${unknownIdLike(enabled.webhookId)}`;
  return {
    unknown_endpoint: { path: unknownPath, secret: enabled.secret, age: 0 },
    disabled_endpoint: { path: disabled.path, secret: disabled.secret, age: 0 },
    bad_signature: { path: enabled.path, secret: strangerSecret(scheme), age: 0 },
    other_scheme: { path: hooks[OTHER_SCHEME_TARGET[scheme]].path, secret: strangerSecret(scheme), age: 0 },
    bearer_webhook: { path: hooks.bearer.path, secret: strangerSecret(scheme), age: 0 },
    stale_timestamp: { path: enabled.path, secret: enabled.secret, age: STALE_BY(scheme) },
    unknown_stale: { path: unknownPath, secret: enabled.secret, age: STALE_BY(scheme) },
  };
}

/**
 * Sets up, per scheme, an enabled and a disabled webhook, and returns the families:
 * { [scheme]: { kinds, pairs, body, build(kind) → { path, headers }, enabled, routineOf } }.
 * `bearer` is the bearer family's enabled webhook (a target of other_scheme).
 */
export async function setUpSignedFamilies(stack, bearer) {
  const hooks = { bearer };
  const setUp = (label, verification) => setUpWebhook(stack.baseUrl, stack.token, label, { verification });
  for (const scheme of SIGNED_SCHEMES) {
    hooks[scheme] = await enableSigned(setUp, `timing-${scheme}`, scheme);
    hooks[`${scheme}_disabled`] = await enableSigned(setUp, `timing-${scheme}-off`, scheme);
    await disableWebhook(stack.baseUrl, stack.token, hooks[`${scheme}_disabled`].routineId);
  }
  const families = {};
  for (const scheme of SIGNED_SCHEMES) {
    const plan = signedPlan(scheme, hooks);
    const body = eventBodyFor(scheme, SIGNED_BODY_BYTES);
    const signed = signer(scheme, body);
    const build = (kind) => ({ path: plan[kind].path, ...signed(plan[kind].secret, nowSeconds() - plan[kind].age) });
    const kinds = signedKinds(scheme);
    assertSameSize(scheme, kinds, build);
    families[scheme] = { kinds, pairs: signedPairs(scheme), body, build, enabled: hooks[scheme], routineOf: routineOf(hooks, scheme) };
  }
  return families;
}

/** The routine whose rejected-attempts list shows a kind's refusal (undefined for an unknown id). */
function routineOf(hooks, scheme) {
  return {
    disabled_endpoint: hooks[`${scheme}_disabled`].routineId,
    bad_signature: hooks[scheme].routineId,
    other_scheme: hooks[OTHER_SCHEME_TARGET[scheme]].routineId,
    bearer_webhook: hooks.bearer.routineId,
    stale_timestamp: hooks[scheme].routineId,
  };
}

/**
 * (secret, seconds) → { headers, body } the scheme's sender sends for `body` (from eventBodyFor): a
 * fixed delivery id / message id per family (a 404 replays nothing); the body as sent (Linear's
 * carries its signed time, so it is made per request, of the same length; Graph's wraps it with the
 * clientState).
 */
export function signer(scheme, body) {
  const id = scheme === 'github' || scheme === 'twitch' ? randomUUID() : `msg_${randomBytes(18).toString('base64url')}`;
  return (secret, seconds) => signedDelivery(scheme, { secret, body, seconds, id });
}

/** The bytes a request puts on the wire besides what every request shares: path, header names and values, body. */
function requestBytes({ path, headers, body }) {
  let size = Buffer.byteLength(path) + Buffer.byteLength(body);
  for (const [name, value] of Object.entries(headers)) size += Buffer.byteLength(name) + Buffer.byteLength(value);
  return size;
}

function assertSameSize(scheme, kinds, build) {
  const sizes = Object.fromEntries(kinds.map((kind) => [kind, requestBytes(build(kind))]));
  if (new Set(Object.values(sizes)).size !== 1) throw new Error(`${scheme}: the kinds differ in size: ${JSON.stringify(sizes)}`);
}

/**
 * Before timing: a valid delivery to each enabled webhook answers 202 (the client's signatures are
 * right), and every kind sent to a known webhook answers 404 and is listed with the reason it is
 * meant to exercise (a signature that matched on the disabled webhook, a mismatch, the wrong
 * scheme, a timestamp outside the tolerance). Returns what it saw, per scheme and kind.
 */
export async function preflight(stack, families, send) {
  const seen = {};
  for (const [scheme, family] of Object.entries(families)) {
    const valid = family.build('unknown_endpoint');
    const accepted = await send(family.enabled.path, validHeaders(scheme, valid.headers), valid.body);
    if (accepted.status !== 202) throw new Error(`${scheme}: a valid delivery answered ${accepted.status}, not 202`);
    seen[scheme] = { valid_delivery: accepted.status };
    for (const kind of family.kinds) {
      const routineId = family.routineOf[kind];
      const before = routineId ? (await attempts(stack, routineId)).length : 0;
      const { path, headers, body } = family.build(kind);
      const { status } = await send(path, headers, body);
      if (status !== refusalStatus(scheme)) throw new Error(`${scheme}:${kind} answered ${status}, not ${refusalStatus(scheme)}`);
      const reason = routineId ? await newestReason(stack, routineId, before) : null;
      if (routineId && reason !== EXPECTED_REASON[kind])
        throw new Error(`${scheme}:${kind} was refused as ${reason}, not ${EXPECTED_REASON[kind]}`);
      seen[scheme][kind] = { status, reason };
    }
  }
  return seen;
}

/** The unknown_endpoint request's headers are a valid delivery for the enabled webhook; GitHub's needs its own delivery id. */
function validHeaders(scheme, headers) {
  return scheme === 'github' ? { ...headers, 'x-github-delivery': randomUUID() } : headers;
}

async function attempts(stack, routineId) {
  return (await admin(stack.baseUrl, stack.token, 'GET', `/admin/routines/${routineId}/webhook/attempts`)).attempts;
}

/** The reason of the attempt recorded after `before` were listed (recorded after the answer, on a thread of its own). */
async function newestReason(stack, routineId, before) {
  for (let tries = 0; tries < 100; tries++) {
    const listed = await attempts(stack, routineId);
    if (listed.length > before) return listed[0].reason;
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  return 'nothing recorded';
}
