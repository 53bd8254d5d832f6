import { Logger as NestLogger } from '@nestjs/common';
import { Kafka, logLevel, type LogEntry } from 'kafkajs';

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

export interface KafkaClientOptions {
  readonly brokers: readonly string[];
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
  const { logger } = options;
  return new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
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
