import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaScriptOrThrow, runKafkaScript } from '../support/kafka-broker';
import { securedBrokerEnv, serviceKafkaEnv, startSecuredKafkaBroker } from '../support/kafka-secured-broker';
import { createTestDatabase, type TestDatabase } from '../support/postgres-test-database';
import { PrivateRedis } from '../support/private-redis';
import { DISPATCHER_MAIN, INGRESS_MAIN, ServiceProcess, assertBuilt, freePort } from '../support/service-processes';
import { eventually } from '@wts/testing';

interface HealthBody {
  readonly status: 'ok' | 'error';
  readonly details: Record<string, { readonly status: 'up' | 'down'; readonly message?: string }>;
}

/**
 * Readiness of both services as processes from dist/, in the production shape: Kafka (a broker of
 * the test's own), Redis (a redis-server of the test's own), PostgreSQL (a fresh database on the
 * machine's server) and the embedded event store. Killing Redis or the broker flips readiness to
 * 503 naming the check within seconds, and back to 200 once it returns; liveness never moves.
 */
describe('health: liveness and readiness against the real servers', () => {
  let brokerEnv: NodeJS.ProcessEnv;
  let redis: PrivateRedis;
  let database: TestDatabase;
  let dataDir: string;
  let ingress: ServiceProcess;
  let dispatcher: ServiceProcess;
  let ingressUrl: string;
  let dispatcherUrl: string;

  beforeAll(async () => {
    assertBuilt();
    brokerEnv = securedBrokerEnv(mkdtempSync(join(tmpdir(), 'wts-e2e-health-kafka-')));
    const [secured, redisServer, db] = await Promise.all([
      startSecuredKafkaBroker(brokerEnv),
      PrivateRedis.start(),
      createTestDatabase('health'),
    ]);
    redis = redisServer;
    database = db;
    dataDir = mkdtempSync(join(tmpdir(), 'wts-e2e-health-'));
    const [port, dispatcherPort] = [await freePort(), await freePort()];
    ingressUrl = `http://127.0.0.1:${port}`;
    dispatcherUrl = `http://127.0.0.1:${dispatcherPort}`;
    const shared = {
      DATA_DIR: dataDir,
      ADMIN_TOKEN: randomBytes(24).toString('base64url'),
      REDIS_URL: redis.url,
      DATABASE_URL: database.url,
      LOG_LEVEL: 'warn',
      PORT: String(port),
      DISPATCHER_PORT: String(dispatcherPort),
    };
    // Each with its own Kafka credentials (SASL/SCRAM), as compose runs them.
    ingress = new ServiceProcess('ingress', INGRESS_MAIN, { ...shared, ...serviceKafkaEnv(secured, 'ingress') });
    dispatcher = new ServiceProcess('run-dispatcher', DISPATCHER_MAIN, { ...shared, ...serviceKafkaEnv(secured, 'dispatcher') });
    ingress.start();
    dispatcher.start();
    await eventually(async () => (await fetch(`${ingressUrl}/health/ready`)).ok, 60_000, `the ingress to be ready\n${ingress.tail()}`);
    await eventually(
      async () => (await fetch(`${dispatcherUrl}/health/ready`)).ok,
      60_000,
      `the dispatcher to be ready\n${dispatcher.tail()}`,
    );
  }, 240_000);

  afterAll(async () => {
    await Promise.all([ingress?.stop(), dispatcher?.stop()]);
    await redis?.kill();
    if (brokerEnv) await runKafkaScript('clean', brokerEnv);
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const health = async (url: string): Promise<{ status: number; body: HealthBody }> => {
    const response = await fetch(url);
    return { status: response.status, body: (await response.json()) as HealthBody };
  };

  it('answers live and ready on both services, with one status per configured dependency; the old names are aliases', async () => {
    const ready = await health(`${ingressUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body.details).toEqual({
      event_store: { status: 'up' },
      postgresql: { status: 'up' },
      kafka: { status: 'up' },
      redis: { status: 'up' },
    });
    expect((await health(`${ingressUrl}/readyz`)).body).toEqual(ready.body);
    const dispatcherReady = await health(`${dispatcherUrl}/health/ready`);
    expect(dispatcherReady.status).toBe(200);
    expect(dispatcherReady.body.details).toEqual({ event_store: { status: 'up' }, postgresql: { status: 'up' }, kafka: { status: 'up' } });
    for (const url of [ingressUrl, dispatcherUrl]) {
      expect(await health(`${url}/health/live`)).toEqual({ status: 200, body: { status: 'ok', info: {}, error: {}, details: {} } });
      expect((await health(`${url}/healthz`)).status).toBe(200);
    }
  });

  it('Redis down: the ingress turns unready within seconds, naming redis; ready again once it is back', async () => {
    await redis.kill();
    const down = Date.now();
    await eventually(
      async () => (await health(`${ingressUrl}/health/ready`)).status === 503,
      10_000,
      'the ingress to notice Redis is down',
    );
    expect(Date.now() - down).toBeLessThan(10_000);
    const unready = await health(`${ingressUrl}/health/ready`);
    expect(unready.body.status).toBe('error');
    expect(unready.body.details.redis.status).toBe('down');
    expect(unready.body.details.event_store.status).toBe('up');
    expect((await health(`${ingressUrl}/health/live`)).status).toBe(200);
    await redis.start();
    await eventually(async () => (await health(`${ingressUrl}/health/ready`)).status === 200, 15_000, 'the ingress to be ready again');
  }, 40_000);

  it('broker killed: both services turn unready within seconds, naming kafka; ready again once it is back', async () => {
    await kafkaScriptOrThrow('kill', brokerEnv);
    for (const url of [ingressUrl, dispatcherUrl]) {
      await eventually(async () => (await health(`${url}/health/ready`)).status === 503, 10_000, `${url} to notice the broker is down`);
      const unready = await health(`${url}/health/ready`);
      expect(unready.body.details.kafka.status).toBe('down');
      expect(unready.body.details.event_store.status).toBe('up');
      expect((await health(`${url}/health/live`)).status).toBe(200);
    }
    await kafkaScriptOrThrow('start', brokerEnv);
    for (const url of [ingressUrl, dispatcherUrl]) {
      await eventually(async () => (await health(`${url}/health/ready`)).status === 200, 30_000, `${url} to be ready again`);
    }
  }, 240_000);
});
