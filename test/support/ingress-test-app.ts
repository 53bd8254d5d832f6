/**
 * Integration-test harness for the ingress: a real app on a fresh temp DATA_DIR, listening on
 * 127.0.0.1 (random port), talked to over real HTTP (see IngressHttpClient, IngressAdminClient),
 * with the read-model projector beside it and, on request, the dispatcher.
 */
import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ReadModelProjector, ReleaseDrainWorker, StoreDispatchWorker } from '@wts/application';
import { loadConfig, type AppConfig } from '@wts/config';
import { SqliteEventStore, type EventStore, type RecordedEvent } from '@wts/event-store';
import { createRateLimiter, openReadModelStore, openSecretSealer, ProviderSignatureVerifier } from '@wts/platform';
import type { ReadModelStore } from '@wts/read-models';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IngressDependencies } from '../../apps/ingress/src/ingress.composition';
import { createIngressApp } from '../../apps/ingress/src/ingress.factory';
import { IngressAdminClient } from './ingress-admin.client';
import { startFastProjector, startReleaseDrain, startStoreDispatcher } from './in-process-dispatcher';
import { acceptedDeliveries, allEvents, createdRuns } from './store-inspection';
import { appendDeliveryOutsideScope } from './undispatchable-delivery';

export const TEST_ADMIN_TOKEN = 'admin-token-for-ingress-tests-0123456789';
export const TEST_PUBLIC_BASE_URL = 'https://hooks.example.test';

/** Who the admin API lets in besides the bootstrap token: an OIDC verifier (and the page's sign-in settings); the bootstrap token off. */
export interface TestAccess {
  readonly accessTokens?: IngressDependencies['accessTokens'];
  readonly signIn?: IngressDependencies['signIn'];
  readonly bootstrapTokenOff?: boolean;
}

export class IngressTestApp extends IngressAdminClient {
  private dispatcher: StoreDispatchWorker | undefined;
  private releases: ReleaseDrainWorker | undefined;
  private closed = false;

  /** False for a replica started on another app's DATA_DIR (the owner removes it). */
  private ownsDataDir = true;

  private constructor(
    readonly app: NestFastifyApplication,
    readonly store: SqliteEventStore,
    readonly config: AppConfig,
    readonly dataDir: string,
    port: number,
    private readonly listings: ReadModelStore,
    /** The read-model projector, as the run-dispatcher process runs it beside the ingress. */
    private readonly projector: ReadModelProjector,
  ) {
    super(port, TEST_ADMIN_TOKEN);
  }

  /**
   * Starts an ingress on a fresh temp DATA_DIR; `env` overrides the environment (strings, as in
   * process.env). `shared`: another app's DATA_DIR (a second replica on one store). `wrapStore`:
   * what the app is given instead of the store itself (a recorder, a fault injector); `store`
   * stays the real one.
   */
  static async start(
    env: Record<string, string> = {},
    shared?: { dataDir: string },
    wrapStore: (store: SqliteEventStore) => EventStore = (store) => store,
    access: TestAccess = {},
    /** Dependencies a test gives the ingress itself (a Kafka runs window on its own topic). */
    extra: Pick<IngressDependencies, 'runsWindow'> = {},
  ): Promise<IngressTestApp> {
    const dataDir = shared?.dataDir ?? mkdtempSync(join(tmpdir(), 'wts-ingress-int-'));
    const config = loadConfig({ LOG_LEVEL: 'silent', PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, ...env, DATA_DIR: dataDir });
    const store = SqliteEventStore.open(join(dataDir, 'events.sqlite'));
    // SQLite beside the store, or PostgreSQL when the env names a DATABASE_URL.
    const { readModels } = await openReadModelStore(config);
    const app = await createIngressApp({
      config,
      adminToken: access.bootstrapTokenOff ? undefined : TEST_ADMIN_TOKEN,
      accessTokens: access.accessTokens,
      signIn: access.signIn,
      store: wrapStore(store),
      readModels,
      // As the service chooses it: in memory, or Redis when the env names a REDIS_URL.
      rateLimiter: createRateLimiter(config, () => undefined),
      // As the service opens it: SECRETS_ENCRYPTION_KEY when the env names one, else a key file of
      // this DATA_DIR (a new random key per app; replicas on a shared DATA_DIR share it).
      secrets: openSecretSealer(config),
      signatures: new ProviderSignatureVerifier(),
      ...extra,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.getHttpServer().address() as AddressInfo;
    const projector = startFastProjector(store, readModels);
    const instance = new IngressTestApp(app, store, config, dataDir, address.port, readModels, projector);
    instance.ownsDataDir = shared === undefined;
    return instance;
  }

  get storeFile(): string {
    return join(this.dataDir, 'events.sqlite');
  }

  /** The read-model database this app lists from. */
  get readModels(): ReadModelStore {
    return this.listings;
  }

  /** Creates runs in-process, the way the run-dispatcher does from the store. */
  async startDispatcher(): Promise<void> {
    if (this.dispatcher) return;
    this.dispatcher = await startStoreDispatcher(this.store, this.store);
    this.releases = await startReleaseDrain(this.store, this.store);
  }

  async stopDispatcher(): Promise<void> {
    await this.dispatcher?.stop();
    await this.releases?.stop();
    this.dispatcher = undefined;
    this.releases = undefined;
  }

  /**
   * Stops the app and closes its store. The app that created the DATA_DIR removes it, unless
   * `keepData` (replicas still use it): a later close() then removes it.
   */
  async close(options: { keepData?: boolean } = {}): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.destroyOpenRequests();
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

  // ---------------------------------------------------------------- the store, read directly (see store-inspection)

  allEvents(): Promise<RecordedEvent[]> {
    return allEvents(this.store);
  }

  acceptedDeliveries(routineId?: string): Promise<RecordedEvent[]> {
    return acceptedDeliveries(this.store, routineId);
  }

  createdRuns(routineId?: string): Promise<RecordedEvent[]> {
    return createdRuns(this.store, routineId);
  }

  /** See appendDeliveryOutsideScope: a delivery the dispatcher parks. */
  appendDeliveryOutsideScope(target: { webhookId: string; routineId: string }): Promise<string> {
    return appendDeliveryOutsideScope(this.store, target);
  }
}

/**
 * An IngressTestApp for the enclosing describe: started in beforeAll, closed in afterAll. The
 * returned handle stands for the app (`const t = useIngressTestApp(); ... t.setupWebhook()`);
 * using it outside the tests and hooks that come after is a mistake it names.
 */
export function useIngressTestApp(
  env: Record<string, string> = {},
  wrapStore?: (store: SqliteEventStore) => EventStore,
  access: () => TestAccess = () => ({}),
): IngressTestApp {
  let started: IngressTestApp | undefined;
  beforeAll(async () => {
    started = await IngressTestApp.start(env, undefined, wrapStore, access());
  });
  afterAll(async () => {
    await started?.close();
  });
  return standIn(() => started);
}

/**
 * Two replicas on one store for the enclosing describe: A started in beforeAll, then B on A's data
 * directory; B closed, then A, in afterAll. The handles stand for them as useIngressTestApp's does.
 */
export function useIngressReplicas(env: Record<string, string> = {}): readonly [IngressTestApp, IngressTestApp] {
  let a: IngressTestApp | undefined;
  let b: IngressTestApp | undefined;
  beforeAll(async () => {
    a = await IngressTestApp.start(env);
    b = await IngressTestApp.start(env, { dataDir: a.dataDir });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });
  return [standIn(() => a), standIn(() => b)];
}

/** A handle for an app a hook starts: `current()` once it has, a mistake it names before. */
function standIn(current: () => IngressTestApp | undefined): IngressTestApp {
  return new Proxy({} as IngressTestApp, {
    get(_target, property) {
      const started = current();
      if (!started) throw new Error(`the ingress test app is used (.${String(property)}) before beforeAll started it`);
      const value: unknown = Reflect.get(started, property, started);
      return typeof value === 'function' ? value.bind(started) : value;
    },
  });
}
