/**
 * Integration-test harness for the ingress: a real app on a fresh temp DATA_DIR, listening on
 * 127.0.0.1 (random port), talked to over real HTTP (global fetch, or node:http for raw control).
 */
import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DispatchDeliveryUseCase, ParkDispatchUseCase, ReadModelProjector, StoreDispatchWorker, systemClock } from '@wts/application';
import { loadConfig, type AppConfig } from '@wts/config';
import { SqliteEventStore, type EventStore, type RecordedEvent } from '@wts/event-store';
import { createRateLimiter, openReadModelStore } from '@wts/platform';
import type { ReadModelStore } from '@wts/read-models';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIngressApp } from '../../apps/ingress/src/ingress.factory';
import { appendDeliveryOutsideScope } from './undispatchable-delivery';

export const TEST_ADMIN_TOKEN = 'admin-token-for-ingress-tests-0123456789';
export const TEST_PUBLIC_BASE_URL = 'https://hooks.example.test';
export const PROBLEM_JSON = 'application/problem+json';

export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  readonly json: unknown;
}

// Test bodies are JSON objects of the app's own making: typed loosely on purpose.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface AccountBody {
  readonly id: string;
  readonly email: string;
  readonly aliases: string[];
  readonly active: boolean;
  readonly primary: boolean;
}

export interface RoutineInput {
  name?: string;
  instructions?: string;
  tools?: { name: string; sends_externally: boolean }[];
  mode?: 'supervised' | 'autonomous';
  account_scope: string[];
}

export interface EnabledWebhook {
  readonly webhook_id: string;
  readonly url: string;
  readonly secret: string;
  readonly state: string;
  readonly default_account: string;
  readonly account_override_allowed: boolean;
}

export interface WebhookFixture {
  readonly account: AccountBody;
  readonly routineId: string;
  readonly webhook: EnabledWebhook;
  readonly webhookId: string;
  readonly secret: string;
}

export interface DeliveryOptions {
  /** Defaults to the fixture's secret; null sends no Authorization header. */
  readonly authorization?: string | null;
  /** Defaults to application/json; null sends none (use rawRequest for a body without one). */
  readonly contentType?: string | null;
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
}

export interface RawResponse {
  readonly status: number;
  /** The status line's reason phrase. */
  readonly statusMessage?: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly body: Buffer;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until `check` returns a value other than undefined (or throws after `timeoutMs`). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

export class IngressTestApp {
  private dispatcher: StoreDispatchWorker | undefined;
  private closed = false;
  private seq = 0;
  /** rawRequest sockets not yet closed: destroyed by close(), so none keeps the server (or jest) waiting. */
  private readonly openRequests = new Set<ClientRequest>();

  /** False for a replica started on another app's DATA_DIR (the owner removes it). */
  private ownsDataDir = true;

  private constructor(
    readonly app: NestFastifyApplication,
    readonly store: SqliteEventStore,
    readonly config: AppConfig,
    readonly dataDir: string,
    readonly port: number,
    private readonly listings: ReadModelStore,
    /** The read-model projector, as the run-dispatcher process runs it beside the ingress. */
    private readonly projector: ReadModelProjector,
  ) {}

  /** Starts an ingress on a fresh temp DATA_DIR; `env` overrides the environment (strings, as in process.env). */
  /**
   * `shared`: another app's DATA_DIR (a second replica on one store). `wrapStore`: what the app is
   * given instead of the store itself (a recorder, a fault injector); `store` stays the real one.
   */
  static async start(
    env: Record<string, string> = {},
    shared?: { dataDir: string },
    wrapStore: (store: SqliteEventStore) => EventStore = (store) => store,
  ): Promise<IngressTestApp> {
    const dataDir = shared?.dataDir ?? mkdtempSync(join(tmpdir(), 'wts-ingress-int-'));
    const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, ...env, DATA_DIR: dataDir });
    const store = SqliteEventStore.open(join(dataDir, 'events.sqlite'));
    // SQLite beside the store, or PostgreSQL when the env names a DATABASE_URL.
    const { readModels } = await openReadModelStore(config);
    const app = await createIngressApp({
      config,
      adminToken: TEST_ADMIN_TOKEN,
      store: wrapStore(store),
      readModels,
      // As the service chooses it: in memory, or Redis when the env names a REDIS_URL.
      rateLimiter: createRateLimiter(config, () => undefined),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.getHttpServer().address() as AddressInfo;
    const projector = new ReadModelProjector(store, readModels, { info: () => undefined, error: () => undefined }, { batchSize: 500, flushEveryMs: 5, leaseRetryMs: 100, retryDelayMs: 100, verifyEveryMs: 200 });
    projector.start();
    const instance = new IngressTestApp(app, store, config, dataDir, address.port, readModels, projector);
    instance.ownsDataDir = shared === undefined;
    return instance;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get storeFile(): string {
    return join(this.dataDir, 'events.sqlite');
  }

  /** The local address of a webhook (the public URL names PUBLIC_BASE_URL, not this server). */
  webhookPath(webhookId: string): string {
    return `/workflow-webhooks/${webhookId}`;
  }

  /** The read-model database this app lists from. */
  get readModels(): ReadModelStore {
    return this.listings;
  }

  /** See appendDeliveryOutsideScope: a delivery the dispatcher parks. */
  appendDeliveryOutsideScope(target: { webhookId: string; routineId: string }): Promise<string> {
    return appendDeliveryOutsideScope(this.store, target);
  }

  /** Creates runs in-process, the way the run-dispatcher does from the store. */
  async startDispatcher(): Promise<void> {
    if (this.dispatcher) return;
    const silent = { info: (): void => undefined, error: (): void => undefined };
    this.dispatcher = new StoreDispatchWorker({ store: this.store, checkpoints: this.store.checkpoints(), dispatch: new DispatchDeliveryUseCase(this.store, systemClock), park: new ParkDispatchUseCase(this.store, systemClock), logger: silent });
    await this.dispatcher.start();
  }

  async stopDispatcher(): Promise<void> {
    await this.dispatcher?.stop();
    this.dispatcher = undefined;
  }

  /**
   * Stops the app and closes its store. The app that created the DATA_DIR removes it, unless
   * `keepData` (replicas still use it): a later close() then removes it.
   */
  async close(options: { keepData?: boolean } = {}): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      for (const request of this.openRequests) request.destroy();
      await this.stopDispatcher();
      await this.projector.stop();
      await this.app.close();
      await this.store.close();
    }
    if (this.ownsDataDir && !options.keepData) {
      rmSync(this.dataDir, { recursive: true, force: true });
      this.ownsDataDir = false;
    }
  }

  // ---------------------------------------------------------------- HTTP

  async http(method: string, path: string, init: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<HttpResult> {
    const response = await fetch(this.baseUrl + path, { method, headers: init.headers, body: init.body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: parseJson(text) };
  }

  /** An admin call with the token (or `token` to override; null for none). */
  async admin(method: string, path: string, body?: unknown, token: string | null = TEST_ADMIN_TOKEN): Promise<HttpResult> {
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.http(method, path, { headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  /** An admin call that must succeed with `expected`; returns the body. */
  async adminOk(method: string, path: string, body: unknown, expected: number): Promise<Json> {
    const result = await this.admin(method, path, body);
    if (result.status !== expected) {
      throw new Error(`${method} ${path} answered ${result.status} (expected ${expected}): ${result.text}`);
    }
    return result.json;
  }

  uniqueEmail(prefix = 'user'): string {
    this.seq += 1;
    return `${prefix}${this.seq}@example.com`;
  }

  async createAccount(input: { email?: string; aliases?: string[]; primary?: boolean } = {}): Promise<AccountBody> {
    return this.adminOk('POST', '/admin/accounts', { email: input.email ?? this.uniqueEmail(), ...withoutEmail(input) }, 201) as Promise<AccountBody>;
  }

  async patchAccount(id: string, changes: { aliases?: string[]; active?: boolean; primary?: boolean }): Promise<AccountBody> {
    return this.adminOk('PATCH', `/admin/accounts/${id}`, changes, 200) as Promise<AccountBody>;
  }

  async createRoutine(input: RoutineInput): Promise<Json> {
    return this.adminOk(
      'POST',
      '/admin/routines',
      {
        name: input.name ?? 'Test routine',
        instructions: input.instructions ?? 'Summarise the delivery.',
        tools: input.tools ?? [{ name: 'search', sends_externally: false }],
        mode: input.mode ?? 'supervised',
        account_scope: input.account_scope,
      },
      201,
    );
  }

  async enableWebhook(routineId: string, defaultAccount: string, accountOverrideAllowed = false): Promise<EnabledWebhook> {
    return this.adminOk(
      'POST',
      `/admin/routines/${routineId}/webhook/enable`,
      { default_account: defaultAccount, account_override_allowed: accountOverrideAllowed },
      200,
    ) as Promise<EnabledWebhook>;
  }

  /** One account, one routine scoped to it, an enabled webhook with that account as default. */
  async setupWebhook(options: { accountOverrideAllowed?: boolean; routine?: Partial<RoutineInput>; account?: AccountBody } = {}): Promise<WebhookFixture> {
    const account = options.account ?? (await this.createAccount());
    const routine = await this.createRoutine({ account_scope: [account.id], ...options.routine });
    const webhook = await this.enableWebhook(routine.id, account.email, options.accountOverrideAllowed ?? false);
    return { account, routineId: routine.id, webhook, webhookId: webhook.webhook_id, secret: webhook.secret };
  }

  /** POSTs a delivery with fetch. Body defaults to `{"data":{"hello":"world"}}`. */
  async deliver(target: { webhookId: string; secret: string }, options: DeliveryOptions = {}): Promise<HttpResult> {
    const headers: Record<string, string> = { ...options.headers };
    const authorization = options.authorization === undefined ? `Bearer ${target.secret}` : options.authorization;
    if (authorization !== null) headers.authorization = authorization;
    const contentType = options.contentType === undefined ? 'application/json' : options.contentType;
    if (contentType !== null) headers['content-type'] = contentType;
    const body = options.body ?? JSON.stringify({ data: { hello: 'world' } });
    return this.http('POST', this.webhookPath(target.webhookId), { headers, body });
  }

  /**
   * A request with node:http: exact headers (no defaults added but Host/Connection/framing),
   * optional chunks written one by one, and `end: false` to leave the body unfinished. Resolves
   * with the response as soon as it is complete; `written` tells how many body bytes went out.
   *
   * Bounded: a request whose body is left unfinished is one the server must answer from its headers
   * alone, so no answer within `answerWithinMs` (default 3 s for those, 15 s otherwise) rejects at
   * once with what went wrong — a fast, named failure instead of a test timeout. The socket is
   * destroyed whatever happens (answer, error, timeout), and close() destroys any still open, so a
   * regression never leaves a handle that hangs the run.
   */
  rawRequest(
    method: string,
    path: string,
    headers: OutgoingHttpHeaders,
    chunks: readonly (string | Buffer)[] = [],
    options: { end?: boolean; answerWithinMs?: number } = {},
  ): Promise<RawResponse & { written: number }> {
    const unfinished = options.end === false;
    const answerWithinMs = options.answerWithinMs ?? (unfinished ? 3000 : 15_000);
    return new Promise((resolve, reject) => {
      let written = 0;
      const req = httpRequest({ host: '127.0.0.1', port: this.port, method, path, headers, agent: false }, (res) => {
        const body: Buffer[] = [];
        res.on('data', (chunk: Buffer) => body.push(chunk));
        res.on('end', () => {
          settle();
          resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(body), written });
        });
        res.on('error', (error) => {
          settle();
          reject(error);
        });
      });
      this.openRequests.add(req);
      const timer = setTimeout(() => {
        settle();
        reject(
          new Error(
            `${method} ${path}: no complete answer within ${answerWithinMs} ms` +
              (unfinished ? ' although the body was left unfinished (the server waits for a body it should have refused from the headers)' : ''),
          ),
        );
      }, answerWithinMs);
      function settle(): void {
        clearTimeout(timer);
        req.destroy();
      }
      req.on('close', () => this.openRequests.delete(req));
      // The server may close the connection while we still write (413): not a test failure.
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') {
          settle();
          reject(error);
        }
      });
      for (const chunk of chunks) {
        written += Buffer.byteLength(chunk);
        req.write(chunk);
      }
      if (!unfinished) req.end();
      else req.flushHeaders();
    });
  }

  // ---------------------------------------------------------------- reads

  async deliveries(routineId: string): Promise<Json[]> {
    return ((await this.adminOk('GET', `/admin/routines/${routineId}/webhook/deliveries`, undefined, 200)) as { deliveries: Json[] }).deliveries;
  }

  /** The newest runs of the routine (the first page: `limit` of them, 100 unless given). */
  async runs(routineId: string, limit?: number): Promise<Json[]> {
    const query = limit === undefined ? '' : `?limit=${limit}`;
    return ((await this.adminOk('GET', `/admin/routines/${routineId}/runs${query}`, undefined, 200)) as { runs: Json[] }).runs;
  }

  /** Waits until the runs listing of the routine holds `count` entries (listings follow the store within milliseconds). */
  async waitForRuns(routineId: string, count: number): Promise<Json[]> {
    return eventually(async () => {
      const list = await this.runs(routineId, Math.min(1000, Math.max(count, 100)));
      return list.length >= count ? list : undefined;
    }, 10_000, `${count} runs`);
  }

  /** Waits until the deliveries listing of the routine holds `count` entries. */
  async waitForDeliveries(routineId: string, count: number): Promise<Json[]> {
    return eventually(async () => {
      const list = await this.deliveries(routineId);
      return list.length >= count ? list : undefined;
    }, 5000, `${count} deliveries`);
  }

  /** Waits until the deliveries listing of the routine shows `deliveryId`; returns the item. */
  async waitForDelivery(routineId: string, deliveryId: string): Promise<Json> {
    return eventually(async () => (await this.deliveries(routineId)).find((item: Json) => item.delivery_id === deliveryId), 5000, `delivery ${deliveryId}`);
  }

  /** Waits until the runs listing of the routine shows `runId` (the listing follows the store, after GET /admin/runs/{id} does); returns the item. */
  async waitForListedRun(routineId: string, runId: string): Promise<Json> {
    return eventually(async () => (await this.runs(routineId)).find((item: Json) => item.run_id === runId), 8000, `run ${runId} listed`);
  }

  /** Polls GET /admin/runs/{id} until the dispatcher has created the run. */
  async waitForRun(runId: string): Promise<HttpResult> {
    return eventually(async () => {
      const result = await this.admin('GET', `/admin/runs/${runId}`);
      return result.status === 200 ? result : undefined;
    }, 8000, `run ${runId}`);
  }

  async allEvents(): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    for (;;) {
      const batch = await this.store.readAll({ after: events.at(-1)?.position, limit: 500 });
      events.push(...batch);
      if (batch.length < 500) return events;
    }
  }

  /** DeliveryAccepted events in the store (optionally for one routine): read directly, no lag. */
  async acceptedDeliveries(routineId?: string): Promise<RecordedEvent[]> {
    const events = await this.store.readAll({ limit: 100_000, filter: { streamPrefixes: ['delivery-'] } });
    return events.filter(
      (event) => event.type === 'DeliveryAccepted' && (routineId === undefined || (event.data as { routineId: string }).routineId === routineId),
    );
  }

  async runEvents(routineId?: string): Promise<RecordedEvent[]> {
    const events = await this.store.readAll({ limit: 100_000, filter: { streamPrefixes: ['run-'] } });
    return events.filter(
      (event) => event.type === 'RunCreated' && (routineId === undefined || (event.data as { routineId: string }).routineId === routineId),
    );
  }
}

function withoutEmail<T extends { email?: string }>(input: T): Omit<T, 'email'> {
  const { email: _email, ...rest } = input;
  return rest;
}

/** Asserts the RFC 9457 shape every error must have; returns the parsed problem. */
export function expectProblem(result: { status: number; headers: Headers; json: unknown; text: string }, status: number, code?: string): Json {
  const contentType = result.headers.get('content-type') ?? '';
  if (!contentType.startsWith(PROBLEM_JSON)) throw new Error(`expected ${PROBLEM_JSON}, got "${contentType}" (${result.status}: ${result.text})`);
  const body = result.json as Json;
  if (result.status !== status) throw new Error(`expected status ${status}, got ${result.status}: ${result.text}`);
  if (typeof body !== 'object' || body === null) throw new Error(`problem body is not an object: ${result.text}`);
  for (const field of ['type', 'title', 'status', 'code']) {
    if (!(field in body)) throw new Error(`problem body lacks "${field}": ${result.text}`);
  }
  if (typeof body.type !== 'string' || typeof body.title !== 'string' || typeof body.code !== 'string') {
    throw new Error(`problem fields have the wrong types: ${result.text}`);
  }
  if (body.status !== status) throw new Error(`problem status ${String(body.status)} differs from HTTP status ${status}`);
  if (!/^[a-z][a-z0-9_]*$/.test(body.code)) throw new Error(`problem code is not snake_case: ${body.code}`);
  if (code !== undefined && body.code !== code) throw new Error(`expected code ${code}, got ${body.code}: ${result.text}`);
  return body;
}

/** The framed payload line of a run's initial message (between the begin and end markers). */
export function framedPayloadLine(initialMessage: string): string {
  const lines = initialMessage.split('\n');
  const begin = lines.findIndex((line) => line.startsWith('<<<UNTRUSTED_PAYLOAD_BEGIN'));
  const end = lines.findIndex((line) => line.startsWith('<<<UNTRUSTED_PAYLOAD_END'));
  if (begin < 0 || end !== begin + 2) throw new Error(`no single framed payload line in: ${initialMessage}`);
  return lines[begin + 1] as string;
}
