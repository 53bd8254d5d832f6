/* global Buffer, setImmediate */
/**
 * Where does a 404's time go, per kind? The companion of timing.mjs: the ingress built in-process
 * from dist/ on the embedded store (a temporary DATA_DIR, never listening), and its
 * TriggerWebhookUseCase.execute called directly — no HTTP, so the differences left are the use
 * case's own — for the four 404 kinds (unknown endpoint, disabled endpoint, wrong secret, no
 * Authorization header: checked as a Microsoft Graph notification, its small body read), interleaved in a random order each round. Per kind: p10, median and 10 %
 * trimmed mean in µs, and the store calls made, with the streams looked at that do not exist (a
 * lookup that finds nothing is cheaper than one that finds a stream). Bounded: `--rounds` rounds.
 * `--scheme <any signed scheme>` (github, stripe, standard_webhooks, shopify, gitlab, linear,
 * sentry, pagerduty, zendesk, svix, slack, zoom, discord, twitch, x, meta, microsoft_graph): that
 * scheme's signed 404 kinds instead (the family timing.mjs times, timing-signed.mjs), with the
 * ingress's ProviderSignatureVerifier and the ~1 KiB body each reads; a stale timestamp (the
 * schemes that sign one) is signed 10 minutes before each call.
 *
 * `--cold N`: N MiB read through before each call, so it runs with cold CPU caches (as over HTTP).
 *
 *   node scripts/bench/timing-paths.mjs [--rounds 20000] [--dist DIR] [--scheme stripe] [--cold 8]
 */
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { REPO } from './bench-kit.mjs';
import { signedCommands } from './timing-paths-signed.mjs';

const args = { rounds: 20_000, dist: join(REPO, 'dist'), scheme: undefined, coldMiB: 0 };
for (let i = 2; i < process.argv.length; i += 2) {
  if (process.argv[i] === '--rounds') args.rounds = Number(process.argv[i + 1]);
  else if (process.argv[i] === '--dist') args.dist = resolve(process.argv[i + 1]);
  else if (process.argv[i] === '--scheme') args.scheme = process.argv[i + 1];
  else if (process.argv[i] === '--cold') args.coldMiB = Number(process.argv[i + 1]);
  else throw new Error(`unknown option ${process.argv[i]}`);
}
const WARM_UP = Math.min(3000, Math.floor(args.rounds / 5));

/**
 * `--cold N`: before each timed call, N MiB are read through (one byte per 64-byte line), evicting
 * the CPU caches the previous call warmed, as the client and other processes do between two HTTP
 * requests. 0 (default): calls run back to back, caches warm.
 */
const coldLines = new Uint8Array(args.coldMiB * 1024 * 1024);
function evictCaches() {
  for (let i = 0; i < coldLines.length; i += 64) coldLines[i] ^= 1;
}

const require = createRequire(import.meta.url);
require('reflect-metadata');
const { loadConfig } = require(join(args.dist, 'libs', 'config', 'src'));
const { openEventStore, openReadModelStore, createRateLimiter, openSecretSealer, ProviderSignatureVerifier } = require(
  join(args.dist, 'libs', 'platform', 'src'),
);
const { createIngressApp } = require(join(args.dist, 'apps', 'ingress', 'src', 'ingress.factory.js'));
const { TriggerWebhookUseCase } = require(join(args.dist, 'libs', 'application', 'src'));

const dataDir = mkdtempSync(join(tmpdir(), 'wts-timing-paths-'));
const adminToken = randomBytes(24).toString('base64url');
const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, LOG_LEVEL: 'silent' });
const { store, checkpoints } = await openEventStore(config);
const { readModels } = await openReadModelStore(config);
const app = await createIngressApp({
  config,
  adminToken,
  store,
  checkpoints,
  readModels,
  rateLimiter: createRateLimiter(config, () => {}),
  secrets: openSecretSealer(config, { onWarning: () => {} }),
  signatures: new ProviderSignatureVerifier(),
}).catch((error) => {
  rmSync(dataDir, { recursive: true, force: true });
  throw error;
});
try {
  const fastify = app.getHttpAdapter().getInstance();
  const admin = async (url, payload) => {
    const response = await fastify.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${adminToken}` } });
    if (response.statusCode >= 300) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
    return response.json();
  };
  const setUp = async (label, verification) => {
    const email = `${label}-${randomBytes(4).toString('hex')}@example.com`;
    const account = await admin('/admin/accounts', { email });
    const routine = await admin('/admin/routines', {
      name: label,
      instructions: 'Summarise the delivery.',
      tools: [],
      mode: 'supervised',
      account_scope: [account.id],
    });
    const webhook = await admin(`/admin/routines/${routine.id}/webhook/enable`, {
      default_account: email,
      account_override_allowed: false,
      ...(verification ? { verification } : {}),
    });
    return { webhookId: webhook.webhook_id, routineId: routine.id, secret: verification?.secret ?? webhook.secret };
  };
  const enabled = await setUp('timing');
  const disabled = await setUp('timing-off');
  await admin(`/admin/routines/${disabled.routineId}/webhook/disable`, {});

  // The store calls each execute makes (the use case holds this very store object).
  let calls = [];
  const streamHeads = store.streamHeads.bind(store);
  for (const method of ['streamHeads', 'readStream', 'append', 'readAll']) {
    const original = store[method].bind(store);
    store[method] = (...callArgs) => {
      calls.push({ method, streams: method === 'streamHeads' ? [...callArgs[0]] : [callArgs[0]] });
      return original(...callArgs);
    };
  }
  const unknownId = `wh_${randomBytes(enabled.webhookId.length)
    .toString('base64url')
    .slice(0, enabled.webhookId.length - 3)}`;
  const wrongSecret = randomBytes(enabled.secret.length).toString('base64url').slice(0, enabled.secret.length);
  const MISSING_HEADER_BODY = Buffer.from('{"value":[]}');
  const command = (webhookId, authorization) => ({
    webhookId,
    authorization,
    contentType: 'application/json',
    accountHeader: undefined,
    idempotencyKey: undefined,
    traceparent: undefined,
    sourceAddress: '127.0.0.1',
    // No Authorization (and no signature header) is checked as a Microsoft Graph notification: its
    // body is read, bounded, as every signed request's is (docs/signed-senders.md). Bearer: never read.
    readBody: async () => {
      if (authorization === undefined) return { kind: 'read', bytes: MISSING_HEADER_BODY };
      throw new Error('a bearer 404 must not read the body');
    },
  });
  const kinds = args.scheme
    ? await signedCommands(args.scheme, {
        setUp,
        disable: (routineId) => admin(`/admin/routines/${routineId}/webhook/disable`, {}),
        bearer: enabled,
      })
    : {
        unknown_endpoint: () => command(unknownId, `Bearer ${enabled.secret}`),
        disabled_endpoint: () => command(disabled.webhookId, `Bearer ${disabled.secret}`),
        wrong_secret: () => command(enabled.webhookId, `Bearer ${wrongSecret}`),
        missing_header: () => command(enabled.webhookId, undefined),
      };
  const useCase = await triggerUseCase(fastify);
  const names = Object.keys(kinds);
  const samples = Object.fromEntries(names.map((kind) => [kind, []]));
  const work = {};
  for (let round = 0; round < WARM_UP + args.rounds; round++) {
    const order = [...names];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const kind of order) {
      const request = kinds[kind]();
      evictCaches();
      calls = [];
      const start = process.hrtime.bigint();
      const outcome = await useCase.execute(request);
      const us = Number(process.hrtime.bigint() - start) / 1000;
      // The one refusal: the 404, or a Discord-signed request's one 401.
      const refusal = args.scheme === 'discord' ? 'webhook_unauthorized' : 'webhook_not_found';
      if (outcome.kind !== 'rejected' || outcome.code !== refusal) throw new Error(`${kind}: ${JSON.stringify(outcome)}`);
      if (round >= WARM_UP) samples[kind].push(us);
      work[kind] = calls;
      // Let the deferred recording of the attempt run outside the timed span, as it does after a reply.
      await new Promise((resolveTurn) => setImmediate(resolveTurn));
    }
  }
  const result = {};
  for (const kind of names) {
    const looked = work[kind].flatMap((call) => (call.method === 'streamHeads' ? call.streams : []));
    const heads = await streamHeads(looked);
    result[kind] = {
      p10_us: round2(quantile(samples[kind], 0.1)),
      median_us: round2(quantile(samples[kind], 0.5)),
      trimmed_mean_us: round2(trimmedMean(samples[kind], 0.1)),
      store_calls: work[kind].map((call) => `${call.method}(${call.streams.length})`).join(' '),
      absent_streams_looked_at: looked.filter((streamId) => (heads.get(streamId) ?? -1n) < 0n).length,
    };
  }
  console.log(
    JSON.stringify(
      { rounds: args.rounds, dist: args.dist, scheme: args.scheme ?? 'bearer', cold_mib: args.coldMiB, kinds: result },
      null,
      2,
    ),
  );
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * The app's own TriggerWebhookUseCase (built by its composition, not a Nest provider): caught as
 * `this` of one request's execute, then called directly (no metrics or tracing decorators).
 */
async function triggerUseCase(fastify) {
  const execute = TriggerWebhookUseCase.prototype.execute;
  let caught;
  const remember = (instance) => (caught = instance);
  TriggerWebhookUseCase.prototype.execute = function (...callArgs) {
    return execute.apply(remember(this), callArgs);
  };
  try {
    await fastify.inject({
      method: 'POST',
      url: '/workflow-webhooks/whk_catch',
      payload: '{}',
      headers: { 'content-type': 'application/json' },
    });
  } finally {
    TriggerWebhookUseCase.prototype.execute = execute;
  }
  if (!caught) throw new Error('the public endpoint did not reach TriggerWebhookUseCase.execute');
  return caught;
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(q * (sorted.length - 1))];
}
function trimmedMean(values, trim) {
  const sorted = [...values].sort((a, b) => a - b);
  const cut = Math.floor(sorted.length * trim);
  const kept = sorted.slice(cut, sorted.length - cut);
  return kept.reduce((sum, value) => sum + value, 0) / kept.length;
}
function round2(value) {
  return Math.round(value * 100) / 100;
}
