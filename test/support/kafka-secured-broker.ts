/**
 * A test broker as production runs it: SASL/SCRAM over TLS (a private CA) and ACLs (kafka.sh with
 * KAFKA_SCRAM_USERS and KAFKA_TLS=1), the grants applied from the product's own plan
 * (kafkaAccessPlan). Services connect to the SASL_SSL listener with their own credentials, trusting
 * the CA (KAFKA_SSL_CA_FILE); the test tooling keeps the PLAINTEXT listener, whose anonymous
 * principal is the broker's super user (127.0.0.1 only, never in compose).
 */
import {
  applyKafkaAccess,
  createKafkaClient,
  kafkaAccessPlan,
  kafkaTopicNames,
  silentMessagingLogger,
  type KafkaConnection,
  type KafkaTopicNames,
} from '@wts/messaging';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type Kafka } from 'kafkajs';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { TEST_KAFKA_TLS_DIR_ENV, runKafkaScript } from './kafka-broker';
import { testKafka } from './kafka-test-kit';

/** The SCRAM users of a secured test broker: one per part, a reader, and one with no grant at all. */
export const TEST_KAFKA_USERS = ['ingress', 'dispatcher', 'reader', 'intruder'] as const;
export type TestKafkaUser = (typeof TEST_KAFKA_USERS)[number];

/** The reader's consumer group prefix (its grant: `reader-*`). */
export const READER_GROUP_PREFIX = 'reader-';

export interface SecuredKafka {
  /** PLAINTEXT: the tooling's super user (collectors, fixtures, topic sizes). */
  readonly adminBrokers: string;
  /** SASL_SSL with SCRAM-SHA-512: where the services connect. */
  readonly saslBrokers: string;
  /** The PEM file of the CA that signed the broker's certificate, and its text. */
  readonly caFile: string;
  readonly ca: string;
  readonly passwords: Readonly<Record<TestKafkaUser, string>>;
}

/**
 * kafka.sh's environment for a secured broker: fresh passwords, kept across the script's restarts;
 * the run's shared CA and key pair when jest's globalSetup named a place for them (else its own).
 */
export function securedBrokerEnv(dataDir: string): NodeJS.ProcessEnv {
  const users = TEST_KAFKA_USERS.map((user) => `${user}:${randomBytes(12).toString('hex')}`);
  const tlsDir = process.env[TEST_KAFKA_TLS_DIR_ENV];
  return {
    KAFKA_DATA_DIR: dataDir,
    KAFKA_OWNER_CLEANUP: '1',
    KAFKA_SCRAM_USERS: users.join(' '),
    KAFKA_TLS: '1',
    ...(tlsDir ? { KAFKA_TLS_DIR: tlsDir } : {}),
  };
}

/**
 * Starts (or finds) the secured broker of `env` (securedBrokerEnv) and applies the deployment's
 * grants for the production topic names (or `topics`).
 */
export async function startSecuredKafkaBroker(env: NodeJS.ProcessEnv, topics: KafkaTopicNames = kafkaTopicNames()): Promise<SecuredKafka> {
  const result = await runKafkaScript('start', env);
  const adminBrokers = /^KAFKA_BROKERS=(\S+)$/m.exec(result.stdout)?.[1];
  const saslBrokers = /^KAFKA_SASL_BROKERS=(\S+)$/m.exec(result.stdout)?.[1];
  const caFile = /^KAFKA_TLS_CA=(\S+)$/m.exec(result.stdout)?.[1];
  if (result.code !== 0 || !adminBrokers || !saslBrokers || !caFile)
    throw new Error(`kafka.sh start (SCRAM) failed (exit ${result.code}):\n${result.stderr.slice(-4000)}`);
  const passwords = Object.fromEntries((env.KAFKA_SCRAM_USERS ?? '').split(' ').map((pair) => pair.split(':'))) as Record<
    TestKafkaUser,
    string
  >;
  await applyKafkaAccess(
    testKafka([adminBrokers], 'acl-setup'),
    kafkaAccessPlan(
      { ingress: 'User:ingress', dispatcher: 'User:dispatcher', readers: [{ principal: 'User:reader', group: `${READER_GROUP_PREFIX}*` }] },
      topics,
    ),
  );
  return { adminBrokers, saslBrokers, caFile, ca: readFileSync(caFile, 'utf8'), passwords };
}

/** How `user` connects (the services' KAFKA_* settings, as a connection). */
export function connectionAs(kafka: SecuredKafka, user: TestKafkaUser, password = kafka.passwords[user]): KafkaConnection {
  return { brokers: [kafka.saslBrokers], sasl: { mechanism: 'scram-sha-512', username: user, password }, ssl: true, ca: kafka.ca };
}

/** A client as `user`, with the services' own factory. */
export function clientAs(kafka: SecuredKafka, user: TestKafkaUser, password?: string): Kafka {
  return createKafkaClient({
    connection: connectionAs(kafka, user, password),
    clientId: `test-${user}`,
    logger: silentMessagingLogger,
    connectionTimeoutMs: 2000,
    requestTimeoutMs: 5000,
  });
}

export interface AclBinding {
  readonly resource: string;
  readonly principal: string;
  readonly operation: AclOperationTypes;
  readonly permission: AclPermissionTypes;
}

/** Every ACL binding the broker holds (of `principal`, when given), asked through the tooling's listener. */
export async function aclBindings(kafka: SecuredKafka, principal?: string): Promise<AclBinding[]> {
  const admin = testKafka([kafka.adminBrokers], 'acl-check').admin();
  await admin.connect();
  try {
    const described = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
      ...(principal === undefined ? {} : { principal }),
    });
    return described.resources.flatMap((resource) =>
      resource.acls.map((acl) => ({
        resource: resource.resourceName,
        principal: acl.principal,
        operation: acl.operation,
        permission: acl.permissionType,
      })),
    );
  } finally {
    await admin.disconnect();
  }
}

/** A service's environment to reach the broker as `user`. */
export function serviceKafkaEnv(kafka: SecuredKafka, user: 'ingress' | 'dispatcher'): NodeJS.ProcessEnv {
  return {
    KAFKA_BROKERS: kafka.saslBrokers,
    KAFKA_SASL_MECHANISM: 'scram-sha-512',
    KAFKA_SASL_USERNAME: user,
    KAFKA_SASL_PASSWORD: kafka.passwords[user],
    KAFKA_SSL_CA_FILE: kafka.caFile,
  };
}
