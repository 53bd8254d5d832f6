import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { Signal, describeError, retryWithBackoff } from '@wts/runtime';
import { KAFKA_RETENTION_CHECK_INTERVAL_MS, kafkaCopiesExpiry, type KafkaCopiesExpireBy, type KafkaRetentionWindow } from '@wts/domain';
import {
  START_RETRY_BACKOFF,
  createKafkaClient,
  silentMessagingLogger,
  type KafkaConnection,
  type MessagingLogger,
} from './kafka-client.factory';
import { KafkaRetentionRefusedError, readRunsWindow, runsTopicRetention } from './kafka-retention.preflight';
import { kafkaTopicNames, type KafkaTopicNames } from './kafka-topics.contract';

export interface KafkaRunsWindowSettings {
  readonly connection: KafkaConnection;
  /** PAYLOAD_RETENTION_SECONDS: the window assumed until the broker answers (what the dispatcher creates the topic with). */
  readonly payloadRetentionSeconds: number;
  readonly topics?: KafkaTopicNames;
  readonly logger?: MessagingLogger;
}

/**
 * How long routines.runs.v1 keeps copies of payloads, as a service that does not own the topic
 * (the ingress) knows it: null without Kafka; with Kafka, the window the dispatcher creates the
 * topic with for this PAYLOAD_RETENTION_SECONDS until the broker answers, then the topic's own
 * (topic or broker default), read once at start in the background (retried until the broker
 * answers; a topic not created yet keeps the assumed window: the dispatcher creates it so).
 */
export class KafkaRunsWindowSource implements OnApplicationBootstrap, OnModuleDestroy {
  private window: KafkaRetentionWindow | null;
  private readonly kafka: Kafka | undefined;
  private readonly topics: KafkaTopicNames;
  private readonly logger: MessagingLogger;
  private readonly stopRequested = new Signal();
  private learning: Promise<void> | undefined;
  private stopped = false;

  constructor(settings: KafkaRunsWindowSettings | undefined) {
    this.topics = settings?.topics ?? kafkaTopicNames();
    this.logger = settings?.logger ?? silentMessagingLogger;
    this.window = settings ? assumedWindow(this.topics.routineRuns, settings.payloadRetentionSeconds) : null;
    this.kafka = settings && createKafkaClient({ connection: settings.connection, clientId: 'runs-window', logger: this.logger });
  }

  /** The window as known now; null without Kafka. */
  current(): KafkaRetentionWindow | null {
    return this.window;
  }

  /** kafkaCopiesExpireBy with this window (what an erasure answers as kafka_copies_expire_by). */
  get copiesExpireBy(): KafkaCopiesExpireBy {
    return kafkaCopiesExpiry(() => this.current());
  }

  /** Reads the topic's window in the background; resolves once read (tests wait on it), never rejects. */
  learn(): Promise<void> {
    this.learning ??= this.readWhenReachable();
    return this.learning;
  }

  onApplicationBootstrap(): void {
    void this.learn();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    this.stopRequested.notify();
    await this.learning;
  }

  private async readWhenReachable(): Promise<void> {
    const kafka = this.kafka;
    if (!kafka) return;
    await retryWithBackoff(
      async () => {
        const read = await readRunsWindow(kafka, this.topics);
        if (read && !this.stopped) this.window = read;
        this.logger.info(
          { topic: this.topics.routineRuns, window: this.window, read: read !== undefined },
          'Kafka retention window of run messages',
        );
      },
      {
        ...START_RETRY_BACKOFF,
        proceed: () => !this.stopped,
        interrupt: this.stopRequested,
        onFailure: (error) => this.logger.warn({ err: describeError(error) }, "cannot read the runs topic's retention yet; retrying"),
      },
    ).catch((error: unknown) => this.logger.error({ err: describeError(error) }, "the runs topic's retention could not be read"));
  }
}

/** The window the dispatcher creates routines.runs.v1 with; null when none fits (the dispatcher refuses to start then). */
function assumedWindow(topic: string, payloadRetentionSeconds: number): KafkaRetentionWindow | null {
  try {
    return { topic, ...runsTopicRetention(topic, payloadRetentionSeconds), checkIntervalMs: KAFKA_RETENTION_CHECK_INTERVAL_MS };
  } catch (error) {
    if (error instanceof KafkaRetentionRefusedError) return null;
    throw error;
  }
}
