/**
 * What the providers with a URL-verification handshake send (Slack, Zoom, Discord, Twitch, X,
 * Meta, Microsoft Graph), signed as each one's documentation has it — Discord with a real Ed25519
 * pair (verified in the unit tests against discord-interactions' verifyKey), Meta with Octokit's
 * `sign` (GitHub's form) — and a webhook enabled for each: the handshake integration specs.
 */
import { sign as hubSign } from '@octokit/webhooks-methods';
import { eventually } from '@wts/testing';
import { createHmac, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import type { IngressTestApp } from './ingress-test-app';
import type { HttpResult, Json } from './ingress-http.client';
import type { SignedHook } from './signed-delivery.headers';

const JSON_TYPE = 'application/json';
const seconds = (): number => Math.floor(Date.now() / 1000);
const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

export const SLACK_SECRET = hex(16);
export const ZOOM_SECRET = randomBytes(16).toString('base64url');
export const TWITCH_SECRET = `twitch-secret-${hex(8)}`;
export const X_SECRET = randomBytes(30)
  .toString('base64')
  .replace(/[^A-Za-z0-9]/g, '')
  .slice(0, 40);
export const META_APP_SECRET = hex(16);
export const META_VERIFY_TOKEN = `meta-verify-${hex(8)}`;
export const GRAPH_CLIENT_STATE = `graph-state-${hex(8)}`;
export const DISCORD_KEYS = generateKeyPairSync('ed25519');
export const DISCORD_PUBLIC_KEY = DISCORD_KEYS.publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');

const v0 = (secret: string, timestamp: number, body: string): string =>
  'v0=' + createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');

export function slackHeaders(secret: string, body: string, at = seconds()): Record<string, string> {
  return { 'content-type': JSON_TYPE, 'x-slack-request-timestamp': String(at), 'x-slack-signature': v0(secret, at, body) };
}

export function zoomHeaders(secret: string, body: string, at = seconds()): Record<string, string> {
  return { 'content-type': JSON_TYPE, 'x-zm-request-timestamp': String(at), 'x-zm-signature': v0(secret, at, body) };
}

export function discordHeaders(body: string, privateKey = DISCORD_KEYS.privateKey, at = seconds()): Record<string, string> {
  const signature = sign(null, Buffer.from(`${at}${body}`), privateKey).toString('hex');
  return { 'content-type': JSON_TYPE, 'x-signature-ed25519': signature, 'x-signature-timestamp': String(at) };
}

export function twitchHeaders(
  secret: string,
  body: string,
  type: 'notification' | 'webhook_callback_verification' = 'notification',
  id = randomUUID(),
  at = new Date(),
): Record<string, string> {
  const timestamp = at.toISOString().replace('Z', '123456Z');
  const signature =
    'sha256=' +
    createHmac('sha256', secret)
      .update(id + timestamp + body)
      .digest('hex');
  return {
    'content-type': JSON_TYPE,
    'twitch-eventsub-message-id': id,
    'twitch-eventsub-message-timestamp': timestamp,
    'twitch-eventsub-message-signature': signature,
    'twitch-eventsub-message-type': type,
    'twitch-eventsub-subscription-type': 'channel.follow',
  };
}

export function xHeaders(secret: string, body: string): Record<string, string> {
  return {
    'content-type': JSON_TYPE,
    'x-twitter-webhooks-signature': 'sha256=' + createHmac('sha256', secret).update(body).digest('base64'),
  };
}

export async function metaHeaders(appSecret: string, body: string): Promise<Record<string, string>> {
  return { 'content-type': JSON_TYPE, 'x-hub-signature-256': await hubSign(appSecret, body) };
}

/** Graph sends no credential header: the clientState is in each notification. */
export const graphHeaders = (): Record<string, string> => ({ 'content-type': JSON_TYPE });

export const slackEvent = (): string =>
  JSON.stringify({ type: 'event_callback', event_id: `Ev${hex(6)}`, event_time: seconds(), event: { type: 'app_mention', text: 'hi' } });
export const zoomEvent = (): string =>
  JSON.stringify({ event: 'meeting.started', event_ts: Date.now(), payload: { object: { id: hex(4) } } });
export const discordEvent = (): string =>
  JSON.stringify({
    version: 1,
    application_id: '1',
    type: 1,
    event: { type: 'APPLICATION_AUTHORIZED', timestamp: new Date().toISOString(), data: { n: hex(4) } },
  });
export const twitchEvent = (): string =>
  JSON.stringify({ subscription: { type: 'channel.follow', version: '2' }, event: { user_id: hex(4) } });
export const xEvent = (): string => JSON.stringify({ for_user_id: '2244994945', tweet_create_events: [{ id_str: hex(8) }] });
export const metaEvent = (): string => JSON.stringify({ object: 'page', entry: [{ id: hex(4), time: Date.now() }] });
export const graphEvent = (clientState: string): string =>
  JSON.stringify({ value: [{ subscriptionId: randomUUID(), changeType: 'created', resource: `Users/x/Messages/${hex(4)}`, clientState }] });

/** The verification each provider's webhook is enabled with. */
export const VERIFICATIONS = {
  slack: { scheme: 'slack', secret: SLACK_SECRET },
  zoom: { scheme: 'zoom', secret: ZOOM_SECRET },
  discord: { scheme: 'discord', public_key: DISCORD_PUBLIC_KEY },
  twitch: { scheme: 'twitch', secret: TWITCH_SECRET },
  x: { scheme: 'x', secret: X_SECRET },
  meta: { scheme: 'meta', secret: META_APP_SECRET, verify_token: META_VERIFY_TOKEN },
  microsoft_graph: { scheme: 'microsoft_graph', client_state: GRAPH_CLIENT_STATE },
} as const;

export type HandshakeProvider = keyof typeof VERIFICATIONS;

export type ProviderHook = Omit<SignedHook, 'secret'> & { answer: Json };

/** A routine whose webhook is enabled for `provider`. */
export async function enableProvider(t: IngressTestApp, provider: HandshakeProvider): Promise<ProviderHook> {
  return t.setupSignedWebhook(VERIFICATIONS[provider]);
}

/** The answer's status, content type, body and headers but Date: what "byte-identical" compares. */
export function comparable(result: HttpResult): { status: number; headers: [string, string][]; text: string } {
  return { status: result.status, headers: [...result.headers.entries()].filter(([name]) => name !== 'date'), text: result.text };
}

/** The owner's view of the webhook's recent activity: its attempt lines' reasons, newest first. */
export async function activityReasons(t: IngressTestApp, routineId: string): Promise<string[]> {
  const listed = (await t.adminOk('GET', `/admin/routines/${routineId}/webhook/attempts`, undefined, 200)) as { attempts: Json[] };
  return listed.attempts.map((attempt) => attempt.reason as string);
}

/** Waits (8 s at most) until the webhook's activity shows a line with `reason`. */
export async function seesActivity(t: IngressTestApp, routineId: string, reason: string): Promise<void> {
  await eventually(async () => (await activityReasons(t, routineId)).includes(reason), 8000, `a "${reason}" line in the activity`);
}
