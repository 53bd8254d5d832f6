import type { CheckpointStore, EventStore } from '@wts/event-store';
import type { Kafka } from 'kafkajs';
import { metrics } from '@wts/observability';
import { Signal, describeError, retryWithBackoff } from '@wts/runtime';
import {
  START_RETRY_BACKOFF,
  createKafkaClient,
  silentMessagingLogger,
  type KafkaConnection,
  type MessagingLogger,
} from './kafka-client.factory';
import { ensureTopics, type TopicPartitions } from './kafka-topics.admin';
import { KafkaRetentionRefusedError } from './kafka-retention.preflight';
import { ConsumerGroups, kafkaTopicNames, relayTopics, type KafkaTopicNames, type RelayDefinition } from './kafka-topics.contract';
import { EventRelay } from './event.relay';
import { DEFAULT_RELAY_TUNING, RELAY_PRODUCER_TIMING, RELAY_SEND_BUDGET_MS, type RelayTuning } from './event-relay.tuning';
import { parkInStore, type ParkRecorder } from './park-record';
import {
  DEFAULT_LEADERSHIP_TUNING,
  RelayLeadershipElector,
  type LeadershipChange,
  type LeadershipTuning,
} from './relay-leadership.elector';

export interface KafkaRelaySettings {
  readonly connection: KafkaConnection;
  readonly definition: RelayDefinition;
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
  /** The production names unless a test isolates itself. */
  readonly topics?: KafkaTopicNames;
  readonly partitions?: TopicPartitions;
  /** `max.message.bytes` of the event topics (created with it, raised to it); TOPIC_MAX_MESSAGE_BYTES by default. */
  readonly maxMessageBytes?: number;
  /** Consumer group of the leadership; `relay-<name>` by default. */
  readonly leadershipGroupId?: string;
  readonly logger?: MessagingLogger;
  readonly tuning?: Partial<RelayTuning>;
  readonly leadership?: Partial<LeadershipTuning>;
  /** Where an event the topic will not take is parked; the store's `parked-<event id>` (the application's ParkDispatchUseCase) unless given. */
  readonly recordPark?: ParkRecorder;
  /**
   * PAYLOAD_RETENTION_SECONDS: the relay's topic, when it is routines.runs.v1, must not keep payloads
   * longer (ensureTopics); a topic that does makes start() reject with KafkaRetentionRefusedError,
   * never retried.
   */
  readonly payloadRetentionSeconds?: number;
}

/** A relay's gauges at one moment (KafkaRelaySupervisor.snapshot). */
export interface RelaySnapshot {
  readonly leading: boolean;
  readonly pendingEvents: number;
  readonly oldestPendingAt: number | undefined;
  readonly checkpointSavedAt: number | undefined;
}

/** The wts_relay_* gauges of a relay that runs elsewhere (a thread), read from its last snapshot; none read as not leading. */
export function trackRelaySnapshot(name: string, last: () => RelaySnapshot | undefined): void {
  metrics.trackRelayLeadership(name, () => last()?.leading ?? false);
  metrics.trackRelay(name, {
    pendingEvents: () => last()?.pendingEvents ?? 0,
    oldestPendingAt: () => last()?.oldestPendingAt,
    checkpointSavedAt: () => last()?.checkpointSavedAt,
  });
}

/**
 * A relay with N replicas: every replica runs one of these; the consumer-group leadership lets
 * exactly one of them forward at a time (an EventRelay term per leadership), the others wait to
 * take over from the shared durable checkpoint. Starting never blocks the service: topics are
 * created and the group joined in the background, retried until the broker answers.
 */
export class KafkaRelaySupervisor {
  private readonly kafka: Kafka;
  /** The relay's producer: short timeouts, so that one send cannot outlast the leadership lease. */
  private readonly producerKafka: Kafka;
  private readonly topics: KafkaTopicNames;
  private readonly logger: MessagingLogger;
  private readonly elector: RelayLeadershipElector;
  private readonly recordPark: ParkRecorder;
  private readonly stopRequested = new Signal();
  private transitions: Promise<void> = Promise.resolve();
  private relay: EventRelay | undefined;
  /** The group member id the current term was started under. */
  private termMemberId: string | undefined;
  private starting: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly settings: KafkaRelaySettings) {
    this.logger = settings.logger ?? silentMessagingLogger;
    this.topics = settings.topics ?? kafkaTopicNames();
    this.recordPark = settings.recordPark ?? parkInStore(settings.store);
    metrics.trackRelayLeadership(settings.definition.name, () => this.relay !== undefined);
    this.kafka = createKafkaClient({ connection: settings.connection, clientId: `relay-${settings.definition.name}`, logger: this.logger });
    this.producerKafka = createKafkaClient({
      connection: settings.connection,
      clientId: `relay-${settings.definition.name}`,
      logger: this.logger,
      connectionTimeoutMs: RELAY_PRODUCER_TIMING.connectionTimeoutMs,
      requestTimeoutMs: RELAY_PRODUCER_TIMING.requestTimeoutMs,
    });
    const leadership = { ...DEFAULT_LEADERSHIP_TUNING, ...settings.leadership };
    if (leadership.sessionTimeoutMs <= RELAY_SEND_BUDGET_MS + 2 * leadership.heartbeatIntervalMs) {
      throw new Error(
        `relay leadership sessionTimeoutMs (${leadership.sessionTimeoutMs}) must exceed one send (${RELAY_SEND_BUDGET_MS} ms) plus two heartbeat intervals`,
      );
    }
    this.elector = new RelayLeadershipElector(
      this.kafka,
      {
        ...leadership,
        groupId: settings.leadershipGroupId ?? ConsumerGroups.relayLeadership(settings.definition.name),
        topic: this.topics.relayLeadership,
      },
      this.logger,
      (change) => this.onLeadershipChange(change),
    );
  }

  get name(): string {
    return this.settings.definition.name;
  }

  /** Whether this replica is forwarding right now. */
  isForwarding(): boolean {
    return this.relay !== undefined && this.elector.holds();
  }

  /** What the metrics read (wts_relay_*), as plain data: it crosses to the main thread when the relay runs on its own. */
  snapshot(): RelaySnapshot {
    const relay = this.relay;
    return {
      leading: relay !== undefined,
      pendingEvents: relay?.pendingEvents() ?? 0,
      oldestPendingAt: relay?.oldestPendingAt(),
      checkpointSavedAt: relay?.checkpointSavedAt(),
    };
  }

  /** Resolves once the group is joined (tests wait on it); the service does not need to. Rejects only with KafkaRetentionRefusedError. */
  start(): Promise<void> {
    this.starting ??= this.joinWhenReachable();
    return this.starting;
  }

  /** Graceful: the term in flight finishes its batch and checkpoints, then the group is left. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopRequested.notify();
    // Not awaiting a join still in progress: with the broker away that could take a while; the
    // elector's stop disconnects whatever member exists, and the join loop gives up on `stopped`.
    this.transitions = this.transitions.then(() => this.endTerm('graceful'));
    await this.transitions;
    await this.elector.stop();
    await this.transitions;
  }

  private async joinWhenReachable(): Promise<void> {
    await retryWithBackoff(
      async () => {
        await ensureTopics(this.kafka, this.topics, this.settings.partitions, {
          maxMessageBytes: this.settings.maxMessageBytes,
          logger: this.logger,
          roles: relayTopics(this.settings.definition),
          payloadRetentionSeconds: this.settings.payloadRetentionSeconds,
        });
        if (this.stopped) return;
        await this.elector.start();
      },
      {
        ...START_RETRY_BACKOFF,
        proceed: () => !this.stopped,
        interrupt: this.stopRequested,
        retryIf: (error) => !(error instanceof KafkaRetentionRefusedError),
        onFailure: (error) => this.logger.warn({ relay: this.name, err: describeError(error) }, 'relay cannot reach Kafka yet; retrying'),
      },
    );
  }

  /**
   * Leading → a term runs (or the suspended one resumes, if this is still the same group member:
   * nobody else can have led in between). Suspended → the term pauses by itself (stillLeading is
   * false). Following → the term ends without checkpointing: the successor owns the checkpoint.
   */
  private onLeadershipChange(change: LeadershipChange): void {
    this.transitions = this.transitions.then(async () => {
      if (change.state === 'following') return this.endTerm('deposed');
      if (change.state !== 'leading') return;
      if (this.relay && this.termMemberId !== change.memberId) await this.endTerm('deposed');
      await this.beginTerm();
    });
  }

  private async beginTerm(): Promise<void> {
    await retryWithBackoff(
      async () => {
        const relay: EventRelay = new EventRelay({
          kafka: this.producerKafka,
          store: this.settings.store,
          checkpoints: this.settings.checkpoints,
          definition: this.settings.definition,
          topics: this.topics,
          logger: this.logger,
          tuning: { ...DEFAULT_RELAY_TUNING, ...this.settings.tuning },
          recordPark: this.recordPark,
          // A send starts only if it ends (RELAY_SEND_BUDGET_MS at most) before the session could expire.
          stillLeading: (): boolean => this.relay === relay && this.elector.leaseRemainingMs() > RELAY_SEND_BUDGET_MS,
        });
        try {
          this.relay = relay;
          this.termMemberId = this.elector.currentMemberId;
          await relay.start();
        } catch (error) {
          this.relay = undefined;
          throw error;
        }
      },
      {
        ...START_RETRY_BACKOFF,
        proceed: () => !this.stopped && this.relay === undefined && this.elector.holds(),
        interrupt: this.stopRequested,
        onFailure: (error) =>
          this.logger.error({ relay: this.name, err: describeError(error) }, 'relay could not start its term; retrying'),
      },
    );
  }

  /**
   * Graceful (shutdown, still leading): the batch in flight is acknowledged and checkpointed before
   * the group is left, so the successor sends nothing twice. Deposed: forgotten first, so it
   * neither sends nor checkpoints again (its successor may already have moved the checkpoint).
   */
  private async endTerm(how: 'graceful' | 'deposed'): Promise<void> {
    const relay = this.relay;
    if (!relay) return;
    if (how === 'deposed') this.relay = undefined;
    await relay.stop();
    this.relay = undefined;
  }
}
