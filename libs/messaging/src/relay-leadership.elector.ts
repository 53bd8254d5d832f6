import { AssignerProtocol, type Consumer, type Kafka, type PartitionAssigner } from 'kafkajs';
import { Signal, describeError, retryWithBackoff } from '@wts/runtime';
import { startGroupMember, type MessagingLogger } from './kafka-client.factory';

export interface LeadershipTuning {
  /** Broker minimum is 6 s by default: a crashed leader is replaced after about this long. */
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
}

export const DEFAULT_LEADERSHIP_TUNING: LeadershipTuning = { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 };

export interface LeadershipOptions extends LeadershipTuning {
  /** `relay-<name>`: one group per relay. */
  readonly groupId: string;
  /** A single-partition topic nobody writes to; only its assignment matters. */
  readonly topic: string;
}

/**
 * - `leading`: this member holds partition 0 and its group membership is current: forward.
 * - `suspended`: it held partition 0 but a rebalance is under way or its heartbeats are overdue:
 *   send nothing, checkpoint nothing, until it knows whether it keeps the partition.
 * - `following`: another member (or nobody yet) holds it.
 */
export type LeadershipState = 'leading' | 'suspended' | 'following';

export interface LeadershipChange {
  readonly state: LeadershipState;
  /** The group member id this state belongs to: a new id means this process rejoined as a new member. */
  readonly memberId: string | undefined;
}

/** A new member after a crash kafkajs does not recover from: 500 ms, doubling (up to 10 s) until a group join. */
const REJOIN_BACKOFF = { initialDelayMs: 500, maxDelayMs: 10_000 } as const;

const ASSIGNER_NAME = 'RelayStickyLeader';
const HOLDS = Buffer.from('holds-partition-0');

/**
 * Partition 0 stays with the member that says it holds it, so a replica joining (or restarting)
 * does not move the leadership; only when nobody holds it does it go to the first member.
 */
function stickyLeaderAssigner(holdsPartition: () => boolean): PartitionAssigner {
  return () => ({
    name: ASSIGNER_NAME,
    version: 0,
    async assign({ members, topics }) {
      const sorted = [...members].sort((a, b) => a.memberId.localeCompare(b.memberId));
      const holder =
        sorted.find((member) => AssignerProtocol.MemberMetadata.decode(member.memberMetadata)?.userData?.equals(HOLDS)) ?? sorted[0];
      return sorted.map((member) => ({
        memberId: member.memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: 0,
          assignment: member === holder ? Object.fromEntries(topics.map((topic) => [topic, [0]])) : {},
          userData: Buffer.alloc(0),
        }),
      }));
    },
    protocol({ topics }) {
      return {
        name: ASSIGNER_NAME,
        metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: holdsPartition() ? HOLDS : Buffer.alloc(0) }),
      };
    },
  });
}

/**
 * Leadership through a Kafka consumer group: the member the group assigns partition 0 of the
 * leadership topic leads. It suspends itself as soon as it hears of a rebalance, and when its
 * heartbeats have not been acknowledged for half a session (the coordinator may already have
 * handed the partition to another member); it stops leading on a crash, a stop, or an assignment
 * without partition 0. A crashed leader is replaced once its session expires.
 */
export class RelayLeadershipElector {
  private consumer: Consumer | undefined;
  private memberId: string | undefined;
  private assigned = false;
  private rebalancing = false;
  private lastContact = 0;
  private reported: LeadershipState = 'following';
  private stopped = false;
  private leaseTimer: NodeJS.Timeout | undefined;
  private readonly stopRequested = new Signal();
  /** The wait before the next rejoin: it grows while rejoining fails, and a group join resets it. */
  private rejoinDelay: number = REJOIN_BACKOFF.initialDelayMs;

  constructor(
    private readonly kafka: Kafka,
    private readonly options: LeadershipOptions,
    private readonly logger: MessagingLogger,
    private readonly onChange: (change: LeadershipChange) => void,
  ) {}

  /** Joins the group; throws if the broker cannot be reached (the caller retries). */
  async start(): Promise<void> {
    if (this.stopped) return;
    this.leaseTimer ??= setInterval(() => this.evaluate(), Math.max(50, Math.floor(this.options.heartbeatIntervalMs / 2)));
    this.leaseTimer.unref();
    await this.join();
  }

  /** Whether this member may act as the leader right now. */
  holds(): boolean {
    return this.state() === 'leading';
  }

  /**
   * How long the group can still count on this member's leadership without hearing from it: the
   * session runs out this long after the last acknowledged heartbeat. 0 when not leading.
   */
  leaseRemainingMs(): number {
    if (this.state() !== 'leading') return 0;
    return Math.max(0, this.lastContact + this.options.sessionTimeoutMs - Date.now());
  }

  /** The member id whose leadership holds() reports. */
  get currentMemberId(): string | undefined {
    return this.memberId;
  }

  /** Leaves the group (another member takes over at once) and stops reporting. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.leaseTimer);
    this.stopRequested.notify();
    this.leaseTimer = undefined;
    this.evaluate();
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.disconnect().catch(() => undefined);
  }

  private state(): LeadershipState {
    if (this.stopped || !this.assigned) return 'following';
    if (this.rebalancing || Date.now() - this.lastContact >= this.options.sessionTimeoutMs / 2) return 'suspended';
    return 'leading';
  }

  private async join(): Promise<void> {
    const { groupId, topic, sessionTimeoutMs, heartbeatIntervalMs } = this.options;
    const consumer = this.kafka.consumer({
      groupId,
      sessionTimeout: sessionTimeoutMs,
      rebalanceTimeout: sessionTimeoutMs,
      heartbeatInterval: heartbeatIntervalMs,
      // The topic stays empty: each fetch waits this long, then the runner heartbeats.
      maxWaitTimeInMs: heartbeatIntervalMs,
      partitionAssigners: [stickyLeaderAssigner(() => this.assigned && consumer === this.consumer)],
    });
    this.consumer = consumer;
    const { GROUP_JOIN, HEARTBEAT, REBALANCING, CRASH, STOP, DISCONNECT } = consumer.events;
    consumer.on(GROUP_JOIN, ({ payload }) => {
      if (consumer !== this.consumer) return;
      this.memberId = payload.memberId;
      this.assigned = (payload.memberAssignment[topic] ?? []).includes(0);
      this.rebalancing = false;
      this.lastContact = Date.now();
      this.rejoinDelay = REJOIN_BACKOFF.initialDelayMs;
      this.evaluate();
    });
    consumer.on(HEARTBEAT, () => {
      if (consumer !== this.consumer) return;
      this.lastContact = Date.now();
      this.evaluate();
    });
    consumer.on(REBALANCING, () => {
      if (consumer !== this.consumer) return;
      this.rebalancing = true;
      this.evaluate();
    });
    const lose = (): void => {
      if (consumer !== this.consumer) return;
      this.assigned = false;
      this.evaluate();
    };
    consumer.on(STOP, lose);
    consumer.on(DISCONNECT, lose);
    consumer.on(CRASH, ({ payload }) => {
      lose();
      this.logger.warn({ groupId, restart: payload.restart, err: describeError(payload.error) }, 'relay leadership member crashed');
      if (!payload.restart && consumer === this.consumer) this.rejoinLater();
    });
    await startGroupMember(
      consumer,
      async () => {
        await consumer.subscribe({ topics: [topic] });
        await consumer.run({ eachMessage: async () => undefined });
        if (this.stopped) await consumer.disconnect();
      },
      () => {
        if (this.consumer === consumer) this.consumer = undefined;
      },
    );
  }

  /** kafkajs gives up on non-retriable errors: start over with a new member, after `rejoinDelay`, with backoff. */
  private rejoinLater(): void {
    if (this.stopped) return;
    void retryWithBackoff(
      async () => {
        const crashed = this.consumer;
        this.consumer = undefined;
        await crashed?.disconnect().catch(() => undefined);
        await this.join();
      },
      {
        initialDelayMs: this.rejoinDelay,
        maxDelayMs: REJOIN_BACKOFF.maxDelayMs,
        waitFirst: true,
        proceed: () => !this.stopped,
        interrupt: this.stopRequested,
        onFailure: (error, _attempt, delayMs) => {
          this.logger.warn({ groupId: this.options.groupId, err: describeError(error) }, 'relay leadership rejoin failed; retrying');
          this.rejoinDelay = delayMs;
        },
      },
    );
  }

  private evaluate(): void {
    const state = this.state();
    if (state === this.reported) return;
    this.reported = state;
    this.logger.info({ groupId: this.options.groupId, memberId: this.memberId, state }, `relay leadership: ${state}`);
    this.onChange({ state, memberId: this.memberId });
  }
}
