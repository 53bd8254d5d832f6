#!/usr/bin/env node
/**
 * What checking a signature costs: requests/s and CPU per request of the ingress (from dist/,
 * embedded default, 127.0.0.1) for bearer and signed deliveries (GitHub, Stripe, Standard
 * Webhooks, Shopify, GitLab, Linear, Sentry, PagerDuty, Zendesk, Svix, Slack, Zoom, Discord,
 * Twitch, X, Meta, Microsoft Graph) and the handshakes answered by the service (Slack's
 * url_verification, X's CRC, Graph's validation), each against a bare Fastify server answering the same request in the same run
 * (bare-fastify.mjs), with autocannon from this process.
 *
 * A request that must differ each time is rebuilt per request by autocannon (setupRequest), which
 * costs the load generator, on the same machine, some CPU (reported per row); a 404 or a replay is
 * one request signed when its run starts.
 *
 *   202  a delivery accepted: bearer, without and with an idempotency key (a new one per request:
 *        a signed delivery always has one, its provider's delivery id); GitHub (a new body and
 *        X-GitHub-Delivery per request, signed when it is built: a GitHub delivery's repeats are
 *        recognised by its signature, so the same body again would be a replay); Stripe and
 *        Standard Webhooks (the delivery id is signed: each request gets a new event id /
 *        webhook-id and is signed when it is built, with the time then).
 *        `standard_webhooks_replay`: one delivery sent again and again (202, a replay).
 *        The other providers (`<scheme>_202`): a new delivery id and a new body per request, signed
 *        when it is built (a new body: Shopify and Sentry deliveries are recognised by their
 *        signature, Zoom's, Discord's, X's, Meta's and Graph's by their body; Linear's carries its
 *        signed time).
 *   200  `slack_handshake_200`, `x_crc_200`, `microsoft_graph_validation_200`: the handshake
 *        answered (no delivery, no run); Graph's and X's for any id, so to an unknown one here.
 *   404  an unknown id: bearer (no body read), and per scheme a signature of its form (body read,
 *        signature checked against the decoy secret), with a ~1 KiB body and with a 256 KiB one
 *        (WEBHOOK_MAX_PAYLOAD_BYTES' default, the most any caller can make it hash). Discord's
 *        refusal is its one 401 (`discord_401`).
 *
 * Each round runs every row once (in a shuffled order): 1 s warm-up on each server, then
 * `--seconds` on bare Fastify and `--seconds` on the ingress; a row's figures are the medians over
 * `--rounds` rounds. CPU per request is read from /proc for the server process.
 *
 *   npm run build && node scripts/bench/signed-cost.mjs [--seconds 5] [--rounds 3] [--connections 16] [--out FILE]
 */
import { cpus } from 'node:os';
import { join } from 'node:path';
import { REPO, cpuSeconds, load, median, setUpWebhook, startService, startStack, stopService } from './bench-kit.mjs';
import { readOptions, runFromCommandLine, text } from './command-line.mjs';
import { LARGE, SMALL, rows } from './signed-cost-rows.mjs';
import { SIGNED_SCHEMES } from './signers.mjs';
import { enableSigned } from './timing-signed.mjs';
import { prng } from '../fuzz/fuzz-cases.mjs';

const WARM_UP_SECONDS = 1;

function parseArgs(argv) {
  return readOptions(
    argv,
    { seconds: 5, rounds: 3, connections: 16, out: undefined, only: undefined },
    { seconds: Number, rounds: Number, connections: Number, out: text, only: (value) => value.split(',') },
  );
}

/**
 * autocannon options for a row: a static request (`headers`, or `make()` signed now: a 404 or a
 * replay is the same delivery again, fresh for a run far shorter than the 5-minute tolerance), or
 * one rebuilt per request by `next()` (headers, and body when it changes).
 */
function loadOptions(request) {
  if (request.make) return { path: request.path, body: request.body, ...request.make() };
  if (!request.next)
    return { path: request.path, headers: request.headers, body: request.body, ...(request.method ? { method: request.method } : {}) };
  const first = request.next();
  return {
    path: request.path,
    headers: first.headers,
    body: first.body ?? request.body,
    requests: [
      {
        setupRequest: (req) => {
          const made = request.next();
          return { ...req, headers: made.headers, body: made.body ?? request.body };
        },
      },
    ],
  };
}

/** One measured load run; the server's CPU milliseconds per request and this process's (the load generator and the signing). */
async function measured(baseUrl, pid, row, options) {
  const cpuBefore = cpuSeconds(pid);
  const clientBefore = process.cpuUsage();
  const result = await load({
    baseUrl,
    ...loadOptions(row.request),
    connections: options.connections,
    seconds: options.seconds,
    expectStatus: row.status,
  });
  const client = process.cpuUsage(clientBefore);
  const requests = Math.max(1, result.requests);
  return {
    rps: result.rps,
    p50_ms: result.p50_ms,
    p99_ms: result.p99_ms,
    server_cpu_ms_per_request: ((cpuSeconds(pid) - cpuBefore) * 1000) / requests,
    client_cpu_ms_per_request: (client.user + client.system) / 1000 / requests,
    errors: result.errors,
    unexpected_status: result.unexpected_status,
  };
}

async function startBare() {
  const service = startService('bare-fastify', join(REPO, 'scripts/bench/bare-fastify.mjs'), process.env);
  const port = await new Promise((resolvePort) => service.child.stdout.once('data', (chunk) => resolvePort(Number(String(chunk).trim()))));
  return { service, baseUrl: `http://127.0.0.1:${port}` };
}

export async function runSignedCost(options, log = () => {}) {
  const stack = await startStack({ label: 'signed-cost', withDispatcher: false });
  let bare;
  try {
    bare = await startBare();
    const hooks = { bearer: await setUpWebhook(stack.baseUrl, stack.token, 'cost') };
    const setUp = (label, verification) => setUpWebhook(stack.baseUrl, stack.token, label, { verification });
    for (const scheme of SIGNED_SCHEMES) hooks[scheme] = await enableSigned(setUp, `cost-${scheme}`, scheme);
    const all = rows(hooks).filter((row) => !options.only || options.only.includes(row.name));
    const runs = Object.fromEntries(all.map((row) => [row.name, []]));
    const order = prng(7);
    for (let round = 0; round < options.rounds; round++) {
      const shuffled = [...all];
      for (let i = shuffled.length - 1; i > 0; i--) {
        const j = order.int(0, i);
        [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
      }
      for (const row of shuffled) {
        await load({
          baseUrl: stack.baseUrl,
          ...loadOptions(row.request),
          connections: options.connections,
          seconds: WARM_UP_SECONDS,
          expectStatus: row.status,
        });
        const fastify = await measured(bare.baseUrl, bare.service.child.pid, { ...row, status: 202 }, options);
        const ingress = await measured(stack.baseUrl, stack.ingress.child.pid, row, options);
        if (ingress.unexpected_status > 0 || ingress.errors > 0)
          throw new Error(`${row.name}: ${ingress.unexpected_status} answers other than ${row.status}, ${ingress.errors} errors`);
        runs[row.name].push({ fastify, ingress, ratio: ingress.rps / fastify.rps });
        log(
          `round ${round + 1} ${row.name}: ingress ${Math.round(ingress.rps)}/s, Fastify ${Math.round(fastify.rps)}/s (${(ingress.rps / fastify.rps).toFixed(2)})`,
        );
      }
    }
    const summary = (values) => round2(median(values));
    return {
      measured_at: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version },
      connections: options.connections,
      seconds_per_run: options.seconds,
      rounds: options.rounds,
      rows: all.map(({ name, status }) => {
        const list = runs[name];
        return {
          name,
          status,
          body_bytes: name.endsWith('_256k') ? LARGE : SMALL,
          ingress_rps: Math.round(median(list.map((run) => run.ingress.rps))),
          fastify_rps: Math.round(median(list.map((run) => run.fastify.rps))),
          ratio_to_fastify: summary(list.map((run) => run.ratio)),
          ingress_p50_ms: median(list.map((run) => run.ingress.p50_ms)),
          ingress_p99_ms: median(list.map((run) => run.ingress.p99_ms)),
          ingress_cpu_ms_per_request: round3(median(list.map((run) => run.ingress.server_cpu_ms_per_request))),
          fastify_cpu_ms_per_request: round3(median(list.map((run) => run.fastify.server_cpu_ms_per_request))),
          client_cpu_ms_per_request: round3(median(list.map((run) => run.ingress.client_cpu_ms_per_request))),
          runs: list,
        };
      }),
    };
  } finally {
    if (bare) await stopService(bare.service);
    await stack.stop();
  }
}

const round2 = (value) => Math.round(value * 100) / 100;
const round3 = (value) => Math.round(value * 1000) / 1000;

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runFromCommandLine(parseArgs, runSignedCost);
  for (const row of result.rows)
    console.log(
      `${row.name.padEnd(28)} ${String(row.ingress_rps).padStart(6)}/s  Fastify ${String(row.fastify_rps).padStart(6)}/s  ratio ${row.ratio_to_fastify}  CPU ${row.ingress_cpu_ms_per_request} ms/req`,
    );
}
