/**
 * Harness for the Config page tests: an in-process ingress on a free 127.0.0.1 port whose
 * PUBLIC_BASE_URL is that very address (so the URL the page shows is the one a sender uses), a
 * fresh temp DATA_DIR with the SQLite store, an in-process dispatcher so runs appear (the store
 * worker, and the release drain that runs a released hold's deliveries, as the run-dispatcher
 * composes them; its erasure runner too when asked), and headless Chromium (Debian's package)
 * driven by playwright-core.
 */
import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  DispatchDeliveryUseCase,
  ParkDispatchUseCase,
  systemClock,
  type ReleaseDrainWorker,
  type AccessTokenVerifier,
  type DeliveryToDispatch,
  type ReadModelProjector,
  type StoreDispatchWorker,
} from '@wts/application';
import { loadConfig } from '@wts/config';
import { SqliteEventStore } from '@wts/event-store';
import { MemoryRateLimiter, openReadModelStore, openSecretSealer, ProviderSignatureVerifier } from '@wts/platform';
import { eventually } from '@wts/testing';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createIngressApp } from '../../apps/ingress/src/ingress.factory';
import type { SignInSettings } from '../../apps/ingress/src/ui/sign-in.setting';
import type { ErasureRunnerLifecycle } from '../../apps/run-dispatcher/src/erasure-runner.lifecycle';
import { startFastProjector, startReleaseDrain, startStoreDispatcher } from './in-process-dispatcher';
import { startErasureRunner } from './in-process-erasures';
import { IngressHttpClient } from './ingress-http.client';
import { freePort } from './service-processes';
import { appendDeliveryOutsideScope } from './undispatchable-delivery';

export const UI_ADMIN_TOKEN = 'ui-admin-token-for-browser-tests-0123456789';
export const UI_ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts', 'ui');

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** Rejects at once, naming the fix, when Chromium is missing (npm test's pre-test step installs it). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM_PATH}, so the browser tests cannot run: install Debian's package ` +
        `(sudo apt-get install -y --no-install-recommends chromium; \`npm test\` run as root does it itself) or set CHROMIUM_PATH`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export function artifactsDir(): string {
  mkdirSync(UI_ARTIFACTS, { recursive: true });
  return UI_ARTIFACTS;
}

/** How the server under test lets people in, beside the bootstrap token. */
export interface UiServerOptions {
  /** Default: a free port (a test that registers the page's URL at an identity provider picks it first). */
  readonly port?: number;
  /** OIDC access tokens the admin API accepts. */
  readonly accessTokens?: AccessTokenVerifier;
  /** The Config page's sign-in with the identity provider (GET /ui/sign-in-settings). */
  readonly signIn?: SignInSettings['oidc'];
  /** Runs erasures asked for (POST /admin/erasures) to their end, as the run-dispatcher does (looking every 100 ms). */
  readonly erasures?: boolean;
}

export interface UiHttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // Test bodies are the app's own JSON: typed loosely on purpose.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any;
}

export class UiTestServer {
  private closed = false;
  private readonly client: IngressHttpClient;

  private constructor(
    private readonly app: NestFastifyApplication,
    private readonly store: SqliteEventStore,
    private readonly dispatcher: StoreDispatchWorker,
    /** Runs a released hold's deliveries, in acceptance order, as the run-dispatcher process does. */
    private readonly releases: ReleaseDrainWorker,
    /** Webhooks whose deliveries the store worker fails on (dispatchFailsFor). */
    private readonly failingWebhooks: Set<string>,
    /** The read-model projector, as the run-dispatcher process runs it. */
    private readonly projector: ReadModelProjector,
    /** The erasure runner, when the test asked for it (options.erasures). */
    private readonly erasures: ErasureRunnerLifecycle | undefined,
    private readonly dataDir: string,
    readonly baseUrl: string,
    port: number,
  ) {
    this.client = new IngressHttpClient(port, UI_ADMIN_TOKEN, 'manual');
  }

  static async start(env: Record<string, string> = {}, options: UiServerOptions = {}): Promise<UiTestServer> {
    const port = options.port ?? (await freePort());
    const baseUrl = `http://127.0.0.1:${port}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'wts-ui-'));
    const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_BASE_URL: baseUrl, PORT: String(port), ...env, DATA_DIR: dataDir });
    const store = SqliteEventStore.open(join(dataDir, 'events.sqlite'));
    const { readModels } = await openReadModelStore(config);
    const app = await createIngressApp({
      config,
      adminToken: UI_ADMIN_TOKEN,
      accessTokens: options.accessTokens,
      signIn: options.signIn,
      store,
      readModels,
      rateLimiter: new MemoryRateLimiter(config.limits.rateLimitPerMinute),
      // A key file of this DATA_DIR (a new random key), as the embedded default makes it.
      secrets: openSecretSealer(config),
      signatures: new ProviderSignatureVerifier(),
    });
    await app.listen({ port, host: '127.0.0.1' });
    // The store worker, its dispatch failing (as a bug would) for the webhooks a test names, and
    // retrying quickly, so such a delivery is parked in well under a second.
    const failingWebhooks = new Set<string>();
    const dispatch = new DispatchDeliveryUseCase(store, systemClock, new ParkDispatchUseCase(store, systemClock));
    const dispatcher = await startStoreDispatcher(store, store, {
      dispatch: {
        execute: (input: DeliveryToDispatch) =>
          failingWebhooks.has(input.delivery.webhookId)
            ? Promise.reject(new Error('simulated dispatcher fault (ui-test-server)'))
            : dispatch.execute(input),
      },
      options: { retryDelayMs: 20, maxRetryDelayMs: 100 },
    });
    const releases = await startReleaseDrain(store, store);
    const projector = startFastProjector(store, readModels);
    const erasures = options.erasures ? startErasureRunner(store, readModels) : undefined;
    return new UiTestServer(app, store, dispatcher, releases, failingWebhooks, projector, erasures, dataDir, baseUrl, port);
  }

  /**
   * While `failing`, the dispatcher's store worker fails on every delivery of the webhook (as a bug
   * would): after DISPATCH_ATTEMPTS_BEFORE_PARKING attempts it parks it (`dispatch_failed`). Set
   * back to false, the cause is fixed: a re-dispatch makes the run. The ingress's own dispatch
   * (re-dispatch from the admin API) never fails.
   */
  dispatchFailsFor(webhookId: string, failing: boolean): void {
    if (failing) this.failingWebhooks.add(webhookId);
    else this.failingWebhooks.delete(webhookId);
  }

  /** See appendDeliveryOutsideScope: a delivery the dispatcher parks. */
  appendDeliveryOutsideScope(target: { webhookId: string; routineId: string }): Promise<string> {
    return appendDeliveryOutsideScope(this.store, target);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.erasures?.onApplicationShutdown();
    await this.releases.stop();
    await this.dispatcher.stop();
    await this.projector.stop();
    await this.app.close();
    await this.store.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** Plain HTTP to the server; a redirect is answered as it is, not followed. */
  http(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<UiHttpResult> {
    return this.client.http(method, path, init) as Promise<UiHttpResult>;
  }

  admin(method: string, path: string, body?: unknown, token: string | null = UI_ADMIN_TOKEN): Promise<UiHttpResult> {
    return this.client.admin(method, path, body, token) as Promise<UiHttpResult>;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  adminOk(method: string, path: string, body: unknown, expected: number): Promise<any> {
    return this.client.adminOk(method, path, body, expected);
  }

  async createAccount(email: string, extra: { aliases?: string[]; primary?: boolean } = {}): Promise<{ id: string; email: string }> {
    return this.adminOk('POST', '/admin/accounts', { email, ...extra }, 201);
  }

  async createRoutine(input: {
    name: string;
    account_scope: string[];
    mode?: 'supervised' | 'autonomous';
    tools?: { name: string; sends_externally: boolean }[];
  }): Promise<{ id: string; name: string }> {
    return this.adminOk(
      'POST',
      '/admin/routines',
      {
        instructions: 'Triage the alert.',
        tools: [{ name: 'search', sends_externally: false }],
        mode: 'supervised',
        ...input,
      },
      201,
    );
  }

  /** GET /admin/routines/{id}/webhook, answered 200: the webhook's view. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  webhookView(routineId: string): Promise<any> {
    return this.adminOk('GET', `/admin/routines/${routineId}/webhook`, undefined, 200);
  }

  /** One account (`email`) and, in its scope and in the order given, a routine per name: their ids by key. */
  async createScopedRoutines<K extends string>(email: string, names: Readonly<Record<K, string>>): Promise<Record<K, string>> {
    const account = await this.createAccount(email);
    const ids: Partial<Record<K, string>> = {};
    for (const [key, name] of Object.entries(names) as [K, string][])
      ids[key] = (await this.createRoutine({ name, account_scope: [account.id] })).id;
    return ids as Record<K, string>;
  }

  /** An account (`email`), a routine `name` in its scope, and its webhook enabled as enableWebhook does: their ids and the secret. */
  async createEnabledRoutine(email: string, name: string): Promise<{ routineId: string; webhookId: string; secret: string }> {
    const account = await this.createAccount(email);
    const routineId = (await this.createRoutine({ name, account_scope: [account.id] })).id;
    const enabled = await this.enableWebhook(routineId, account.email);
    return { routineId, webhookId: enabled.webhook_id as string, secret: enabled.secret as string };
  }

  /** Waits (10 s at most; `what` names the wait) for an entry of `action` on the routine's audit trail: the first listed. */
  async auditEntry(routineId: string, action: string, what: string): Promise<{ action: string }> {
    return eventually(
      async () =>
        ((await this.adminOk('GET', `/admin/audit?routine_id=${routineId}`, undefined, 200)).entries as { action: string }[]).find(
          (candidate) => candidate.action === action,
        ),
      10_000,
      what,
    );
  }

  /** A new API key of `role`, named `name`: its secret. */
  async createApiKey(name: string, role: 'viewer' | 'operator' | 'admin'): Promise<string> {
    return (await this.adminOk('POST', '/admin/api-keys', { name, role }, 201)).key as string;
  }

  /** Enables the routine's webhook with bearer verification, `defaultAccount` and no override: its id and secret. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  enableWebhook(routineId: string, defaultAccount: string): Promise<any> {
    return this.adminOk(
      'POST',
      `/admin/routines/${routineId}/webhook/enable`,
      { default_account: defaultAccount, account_override_allowed: false },
      200,
    );
  }

  /** Delivers `body` (as deliver does), expects 202, and waits (10 s at most) until its run is recorded: the delivery's and the run's ids. */
  async deliverAndWaitForRun(webhookId: string, secret: string, body: unknown): Promise<{ deliveryId: string; runId: string }> {
    const accepted = await this.deliver(webhookId, secret, body);
    expect(accepted.status).toBe(202);
    const runId = accepted.json.run_id as string;
    await eventually(async () => (await this.admin('GET', `/admin/runs/${runId}`)).status === 200, 10_000, `run ${runId}`);
    return { deliveryId: accepted.json.delivery_id as string, runId };
  }

  /** POSTs to the public endpoint the way a sender does. */
  deliver(
    webhookId: string,
    secret: string,
    body: unknown = { data: { hello: 'world' } },
    headers: Record<string, string> = {},
  ): Promise<UiHttpResult> {
    return this.http('POST', `/workflow-webhooks/${webhookId}`, {
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }
}
