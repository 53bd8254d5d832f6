/**
 * Both services from the build on a fresh data directory with an admin client, in the Kafka shape
 * (a broker of the test's own with SASL/SCRAM, each service with its own credentials) or the
 * embedded one; stopped and cleaned up again in one call.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminClient } from './admin-client';
import { runKafkaScript } from './kafka-broker';
import { securedBrokerEnv, serviceKafkaEnv, startSecuredKafkaBroker, type SecuredKafka } from './kafka-secured-broker';
import { assertBuilt, startReadyPair, type ReadyPair } from './service-processes';

/** The test's own broker: the environment of its scripts (kill, start, clean) and its users. */
export interface TestBroker {
  readonly env: NodeJS.ProcessEnv;
  readonly secured: SecuredKafka;
}

export interface ServicePair extends ReadyPair {
  readonly dataDir: string;
  readonly admin: AdminClient;
  /** Undefined in the embedded shape. */
  readonly broker: TestBroker | undefined;
  /** Stops both services, then removes the broker's files and the data directory. */
  stop(): Promise<void>;
}

export interface ServicePairOptions {
  readonly kafka: boolean;
  /** On top of the defaults: warnings logged, no rate limit that load could reach, a fresh admin token. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Starts the broker (in the Kafka shape), then the ingress and the dispatcher on a new data
 * directory (`wts-e2e-{name}-…` under the temporary directory), resolved once both are ready.
 * What was started is cleaned up again if a later step fails.
 */
export async function startServicePair(
  name: string,
  options: ServicePairOptions & { readonly kafka: true },
): Promise<ServicePair & { readonly broker: TestBroker }>;
export async function startServicePair(name: string, options: ServicePairOptions): Promise<ServicePair>;
export async function startServicePair(name: string, options: ServicePairOptions): Promise<ServicePair> {
  assertBuilt();
  let brokerEnv: NodeJS.ProcessEnv | undefined;
  let broker: TestBroker | undefined;
  let dataDir: string | undefined;
  const cleanUp = async (): Promise<void> => {
    if (brokerEnv) await runKafkaScript('clean', brokerEnv);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    if (options.kafka) {
      brokerEnv = securedBrokerEnv(mkdtempSync(join(tmpdir(), `wts-e2e-${name}-kafka-`)));
      broker = { env: brokerEnv, secured: await startSecuredKafkaBroker(brokerEnv) };
    }
    dataDir = mkdtempSync(join(tmpdir(), `wts-e2e-${name}-`));
    const token = randomBytes(24).toString('base64url');
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN: token, LOG_LEVEL: 'warn', WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000', ...options.env };
    const own = broker
      ? { ingress: serviceKafkaEnv(broker.secured, 'ingress'), dispatcher: serviceKafkaEnv(broker.secured, 'dispatcher') }
      : {};
    const pair = await startReadyPair(env, own);
    return {
      ...pair,
      dataDir,
      admin: new AdminClient(pair.ingressUrl, token),
      broker,
      stop: async () => {
        await Promise.all([pair.ingress.stop(), pair.dispatcher.stop()]);
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
