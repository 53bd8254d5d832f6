import { BaseRpcContext, Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import type { Kafka } from 'kafkajs';
import { lastValueFrom } from 'rxjs';
import { Signal, describeError, retryWithBackoff } from '@wts/runtime';
import {
  START_RETRY_BACKOFF,
  createKafkaClient,
  nestMessagingLogger,
  type KafkaConnection,
  type MessagingLogger,
} from './kafka-client.factory';
import type { InboundEvent } from './kafka-message.codec';
import { ensureTopics, type TopicPartitions } from './kafka-topics.admin';
import { ConsumerGroups, DISPATCH_CONSUMER_TOPICS, kafkaTopicNames, type KafkaTopicNames } from './kafka-topics.contract';
import type { ParkRecorder } from './park-record';
import { DEFAULT_CONSUMER_TUNING, WebhookEventsConsumer, type ConsumerTuning, type InboundHandler } from './webhook-events.consumer';

export interface KafkaDispatchServerOptions {
  readonly connection: KafkaConnection;
  readonly clientId?: string;
  /** `run-dispatcher` unless a test isolates itself. */
  readonly groupId?: string;
  readonly topics?: KafkaTopicNames;
  readonly partitions?: TopicPartitions;
  readonly tuning?: Partial<ConsumerTuning>;
  readonly logger?: MessagingLogger;
  /** Every park is recorded here too (the event store), not only on the dead-letter topic. */
  readonly recordPark?: ParkRecorder;
  /** Called once a message is on the dead-letter topic (metrics). */
  readonly onDeadLetter?: () => void;
  /** PAYLOAD_RETENTION_SECONDS, passed to ensureTopics (its topics carry no payload: checked only if they ever include routines.runs.v1). */
  readonly payloadRetentionSeconds?: number;
}

/** What `@Ctx()` gives a handler: the decoded event with its topic, partition and offset. */
export class KafkaDispatchContext extends BaseRpcContext<[InboundEvent]> {
  getEvent(): InboundEvent {
    return this.args[0];
  }
}

export type KafkaDispatchStatus = 'connecting' | 'connected' | 'disconnected';

type KafkaDispatchEvents = { error: (error: unknown) => void };

/**
 * A Nest custom transport strategy over WebhookEventsConsumer: `@EventPattern('<event type>')`
 * handlers receive decoded, validated events. The strategy owns kafkajs and its commit rules
 * (eachBatch, manual resolve and commit after the handler, retry in place, dead-letter topic),
 * which Nest's built-in Kafka server (eachMessage, its own commit handling) does not offer.
 * A handler's failure must reach us as a ConsumerFailure (see the dispatcher's exception filter);
 * anything else is retried a few times, then parked.
 */
export class KafkaDispatchServer extends Server<KafkaDispatchEvents, KafkaDispatchStatus> implements CustomTransportStrategy {
  private kafka: Kafka | undefined;
  private consumer: WebhookEventsConsumer | undefined;
  private closed = false;
  private readonly stopRequested = new Signal();
  private readonly errorListeners: ((error: unknown) => void)[] = [];
  private readonly log: MessagingLogger;

  constructor(private readonly options: KafkaDispatchServerOptions) {
    super();
    this.log = options.logger ?? nestMessagingLogger(KafkaDispatchServer.name);
  }

  /** Calls back once the group is joined; until Kafka answers it keeps trying (and says so). */
  listen(callback: (error?: unknown) => void): void {
    this.connect().then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopRequested.notify();
    await this.consumer?.stop();
    this.consumer = undefined;
    this._status$.next('disconnected');
  }

  on<
    EventKey extends keyof KafkaDispatchEvents = keyof KafkaDispatchEvents,
    EventCallback extends KafkaDispatchEvents[EventKey] = KafkaDispatchEvents[EventKey],
  >(event: EventKey, callback: EventCallback): void {
    if (event !== 'error') throw new Error(`KafkaDispatchServer emits no "${String(event)}" event`);
    this.errorListeners.push(callback);
  }

  unwrap<T>(): T {
    if (!this.kafka) throw new Error('KafkaDispatchServer is not listening yet');
    return this.kafka as T;
  }

  private async connect(): Promise<void> {
    this._status$.next('connecting');
    const topics = this.options.topics ?? kafkaTopicNames();
    const kafka = createKafkaClient({
      connection: this.options.connection,
      clientId: this.options.clientId ?? ConsumerGroups.runDispatcher,
      logger: this.log,
    });
    this.kafka = kafka;
    const handlers = this.eventHandlers();
    await retryWithBackoff(
      async () => {
        const consumer = new WebhookEventsConsumer({
          kafka,
          topics,
          groupId: this.options.groupId ?? ConsumerGroups.runDispatcher,
          handlers,
          logger: this.log,
          tuning: { ...DEFAULT_CONSUMER_TUNING, ...this.options.tuning },
          ...(this.options.recordPark ? { recordPark: this.options.recordPark } : {}),
          onDeadLetter: this.options.onDeadLetter,
        });
        this.consumer = consumer;
        try {
          await ensureTopics(kafka, topics, this.options.partitions, {
            logger: this.log,
            roles: DISPATCH_CONSUMER_TOPICS,
            payloadRetentionSeconds: this.options.payloadRetentionSeconds,
          });
          await consumer.start();
          if (this.closed) return consumer.stop();
          this._status$.next('connected');
          this.log.info({ topic: topics.webhookEvents, handles: [...handlers.keys()] }, 'consuming webhook events');
        } catch (error) {
          this.consumer = undefined;
          await consumer.stop();
          throw error;
        }
      },
      {
        ...START_RETRY_BACKOFF,
        proceed: () => !this.closed,
        interrupt: this.stopRequested,
        onFailure: (error) => {
          for (const listener of this.errorListeners) listener(error);
          this.log.warn({ err: describeError(error) }, 'cannot reach Kafka yet; retrying');
        },
      },
    );
  }

  /** The registered @EventPattern handlers, by event type, each awaited to completion. */
  private eventHandlers(): Map<string, InboundHandler> {
    const handlers = new Map<string, InboundHandler>();
    for (const [pattern, handler] of this.getHandlers()) {
      if (handler.isEventHandler) handlers.set(pattern, (event) => this.invoke(handler, event));
    }
    return handlers;
  }

  private async invoke(handler: MessageHandler, event: InboundEvent): Promise<void> {
    // Several handlers of one pattern are chained through `next` by Nest: all must succeed.
    for (let current: MessageHandler | undefined = handler; current; current = current.next as MessageHandler | undefined) {
      const result = await current(event, new KafkaDispatchContext([event]));
      await lastValueFrom(this.transformToObservable(result), { defaultValue: undefined });
    }
  }
}
