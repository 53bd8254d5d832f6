import { Logger as NestLogger } from '@nestjs/common';
import { Kafka, logLevel, type Consumer, type KafkaConfig, type LogEntry } from 'kafkajs';
import type { BackoffPolicy } from '@wts/runtime';

/** What the messaging code logs through: structured fields first, like pino. */
export interface MessagingLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Routes to Nest's logger (nestjs-pino once the app called useLogger). */
export function nestMessagingLogger(context: string): MessagingLogger {
  const logger = new NestLogger(context);
  return {
    info: (fields, message) => logger.log({ ...fields, msg: message }),
    warn: (fields, message) => logger.warn({ ...fields, msg: message }),
    error: (fields, message) => logger.error({ ...fields, msg: message }),
  };
}

export const silentMessagingLogger: MessagingLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Starting (joining a group, a relay's term) is retried until it works: 250 ms, doubling up to 5 s. */
export const START_RETRY_BACKOFF: BackoffPolicy = { initialDelayMs: 250, maxDelayMs: 5000 };

/**
 * Where the brokers are and how to authenticate (the services' KAFKA_BROKERS, KAFKA_SASL_*,
 * KAFKA_SSL). Without `sasl` the connection is unauthenticated, as a plain broker expects.
 */
export interface KafkaConnection {
  readonly brokers: readonly string[];
  readonly sasl?:
    { readonly mechanism: 'scram-sha-256' | 'scram-sha-512' | 'plain'; readonly username: string; readonly password: string } | undefined;
  readonly ssl?: boolean;
  /** PEM certificate authorities to check the brokers against (TLS), instead of the system's. */
  readonly ca?: string;
}

export interface KafkaClientOptions {
  readonly connection: KafkaConnection;
  readonly clientId: string;
  readonly logger: MessagingLogger;
  /** Per request; 10 s unless given (the relay's producer uses a shorter one, see RELAY_PRODUCER_TIMING). */
  readonly requestTimeoutMs?: number;
  /** 3 s unless given. */
  readonly connectionTimeoutMs?: number;
}

/**
 * A kafkajs client whose own log lines go through our logger, as warnings: kafkajs reports every
 * refused connection of a broker restart as an error, and recovers from most of them by itself
 * (what it gives up on, our callers log as errors when they retry). Connection and request
 * timeouts are short: the callers retry with backoff.
 */
export function createKafkaClient(options: KafkaClientOptions): Kafka {
  const { logger, connection } = options;
  return new Kafka({
    clientId: options.clientId,
    brokers: [...connection.brokers],
    ...saslOptions(connection),
    ssl: connection.ca !== undefined ? { ca: [connection.ca] } : connection.ssl === true,
    connectionTimeout: options.connectionTimeoutMs ?? 3000,
    requestTimeout: options.requestTimeoutMs ?? 10_000,
    retry: { initialRetryTime: 100, maxRetryTime: 2000, retries: 8 },
    logLevel: logLevel.ERROR,
    logCreator: () => (entry: LogEntry) => {
      const { message, timestamp: _timestamp, ...extra } = entry.log;
      logger.warn({ kafkajs: entry.namespace, ...extra }, message);
    },
  });
}

/** For a start-up line: brokers, and how the connection authenticates (never the password). */
export function describeKafkaConnection(connection: KafkaConnection): string {
  const security = [
    connection.sasl && `as ${connection.sasl.username} (SASL ${connection.sasl.mechanism.toUpperCase()})`,
    connection.ssl || connection.ca ? 'over TLS' : undefined,
  ].filter(Boolean);
  return [connection.brokers.join(','), ...security].join(' ');
}

/** kafkajs' `sasl` option: a fresh object of the mechanism's own type (kafkajs narrows on it). */
function saslOptions(connection: KafkaConnection): Pick<KafkaConfig, 'sasl'> {
  const sasl = connection.sasl;
  if (!sasl) return {};
  const { username, password } = sasl;
  switch (sasl.mechanism) {
    case 'scram-sha-256':
      return { sasl: { mechanism: 'scram-sha-256', username, password } };
    case 'scram-sha-512':
      return { sasl: { mechanism: 'scram-sha-512', username, password } };
    case 'plain':
      return { sasl: { mechanism: 'plain', username, password } };
  }
}

/**
 * Connects a new consumer group member and starts it (`start`: subscribe and run). When that fails,
 * the member is let go — `abandon` (its owner forgets it), then disconnected — before the error goes on.
 */
export async function startGroupMember(consumer: Consumer, start: () => Promise<void>, abandon: () => void): Promise<void> {
  try {
    await consumer.connect();
    await start();
  } catch (error) {
    abandon();
    await consumer.disconnect().catch(() => undefined);
    throw error;
  }
}
