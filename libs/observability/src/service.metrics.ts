import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Every metric the services export, on one registry per process (GET /metrics). Counters and
 * histograms only cost an increment on the hot path; gauges that describe lag are computed when
 * Prometheus scrapes (`collect`), from what the components record as they go. Labels are bounded
 * and carry no identifier (no webhook id, no account): a 404 is one code, whatever its cause.
 */
export class ServiceMetrics {
  readonly registry = new Registry();

  readonly deliveriesAccepted = this.counter(
    'wts_deliveries_accepted_total',
    'Deliveries answered 202 (new ones; replays are counted apart)',
  );
  readonly deliveriesFiltered = this.counter(
    'wts_deliveries_filtered_total',
    "Deliveries answered 200 filtered: their webhook's filter was false (no run); per webhook in the activity read model",
  );
  readonly filterErrors = this.counter(
    'wts_filter_errors_total',
    "Deliveries accepted though their webhook's filter failed to evaluate (fail open: the run is made)",
  );
  readonly deliveryRejections = this.counter(
    'wts_delivery_rejections_total',
    'Deliveries refused, by problem code (webhook_not_found covers every 404 cause alike)',
    ['code'],
  );
  readonly acceptanceSeconds = this.histogram(
    'wts_delivery_acceptance_seconds',
    'Time from the request to the 202 (durable append included)',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
  readonly idempotentReplays = this.counter(
    'wts_idempotent_replays_total',
    'Deliveries answered with the original 202 of their idempotency key',
  );
  readonly rateLimitDecisions = this.counter('wts_rate_limit_decisions_total', 'Rate-limit decisions, allowed or limited', ['decision']);
  readonly appendBatchSize = this.histogram(
    'wts_event_store_append_batch_size',
    'Appends sharing one commit of the embedded store (group commit)',
    [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
  );
  readonly commitSeconds = this.histogram(
    'wts_event_store_commit_seconds',
    'Duration of one commit (transaction and fsync) of the embedded store',
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
  );
  readonly runs = this.counter(
    'wts_runs_total',
    'Dispatch outcomes: created, already_created (a redelivery or replay), parked, held (accepted while its webhook was held: run on release)',
    ['outcome'],
  );
  readonly unverifiedNotifications = this.counter(
    'wts_unverified_notifications_total',
    'Kafka messages claiming a DeliveryAccepted the event store does not hold as claimed (absent, or different): parked, no run',
  );
  readonly deadLetters = this.counter('wts_dead_letters_total', 'Messages parked on the dead-letter topic');
  /** Children bound once per label value: the hot path neither allocates nor hashes labels. */
  private readonly rejectionsByCode = new Map<string, Counter.Internal>();
  readonly rateLimitAllowed = this.rateLimitDecisions.labels('allowed');
  readonly rateLimitLimited = this.rateLimitDecisions.labels('limited');

  private readonly relays = new Map<string, RelayProgress>();
  private readonly relayLeadership = new Map<string, () => boolean>();
  private projector: ProjectorProgress | undefined;
  private consumerLag: (() => Promise<ReadonlyMap<number, number>>) | undefined;
  private consumerTopic = '';

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    gaugePerRelay(
      this.registry,
      'wts_relay_lag_events',
      'Events the relay has read from the store and Kafka has not acknowledged yet',
      this.relays,
      (progress) => progress.pendingEvents(),
    );
    gaugePerRelay(
      this.registry,
      'wts_relay_lag_seconds',
      'Age of the oldest event the relay has not had acknowledged by Kafka (0 when caught up)',
      this.relays,
      (progress) => ageSeconds(progress.oldestPendingAt()),
    );
    gaugePerRelay(
      this.registry,
      'wts_relay_leading',
      'Whether this replica runs the relay (1) or not (0). The lag gauges describe only a running relay: max over the replicas at 0 means nothing forwards (e.g. Kafka down long enough to depose every replica)',
      this.relayLeadership,
      (leading) => (leading() ? 1 : 0),
    );
    gaugePerRelay(
      this.registry,
      'wts_relay_checkpoint_age_seconds',
      'Time since the relay last saved its checkpoint (grows while Kafka is unreachable)',
      this.relays,
      (progress) => ageSeconds(progress.checkpointSavedAt()),
    );
    const consumerLag = (): { topic: string; lag: () => Promise<ReadonlyMap<number, number>> } | undefined =>
      this.consumerLag ? { topic: this.consumerTopic, lag: this.consumerLag } : undefined;
    new Gauge({
      name: 'wts_consumer_lag_messages',
      help: "Messages of a partition after the consumer group's committed offset (high watermark minus committed offset)",
      labelNames: ['topic', 'partition'] as const,
      registers: [this.registry],
      async collect() {
        const consumer = consumerLag();
        if (!consumer) return;
        // Kafka unreachable: no sample this scrape (the readiness check says why).
        const lags = await consumer.lag().catch(() => undefined);
        this.reset();
        for (const [partition, lag] of lags ?? []) this.set({ topic: consumer.topic, partition: String(partition) }, lag);
      },
    });
    const projector = (): ProjectorProgress | undefined => this.projector;
    // Both projector gauges come from one look at the store per scrape.
    let lagNow: Promise<ProjectorLag | undefined> | undefined;
    const projectorLag = (): Promise<ProjectorLag | undefined> => {
      lagNow ??= (projector()?.lag() ?? Promise.resolve(undefined))
        .catch(() => undefined)
        .finally(() => setTimeout(() => (lagNow = undefined), 100).unref());
      return lagNow;
    };
    projectorGauge(
      this.registry,
      'wts_projector_lag_events',
      "Events in the store after the read models' checkpoint (embedded store: events; EventStoreDB: log positions)",
      projectorLag,
      (lag) => lag.events,
    );
    projectorGauge(
      this.registry,
      'wts_projector_lag_seconds',
      'Age of the oldest event the read models do not show yet (0 when caught up)',
      projectorLag,
      (lag) => ageSeconds(lag.oldestAt),
    );
  }

  /** A counter on this registry. Labels are bounded and carry no identifier. */
  private counter<L extends string = string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram(name: string, help: string, buckets: number[]): Histogram {
    return new Histogram({ name, help, buckets, registers: [this.registry] });
  }

  /** A refused delivery, by its problem code. */
  rejection(code: string): void {
    let child = this.rejectionsByCode.get(code);
    if (!child) {
      child = this.deliveryRejections.labels(code);
      this.rejectionsByCode.set(code, child);
    }
    child.inc();
  }

  /** A relay reports its progress here; the gauges read it at scrape time. */
  trackRelay(name: string, progress: RelayProgress): void {
    this.relays.set(name, progress);
  }

  /** A relay's supervisor reports whether this replica runs the relay now. */
  trackRelayLeadership(name: string, leading: () => boolean): void {
    this.relayLeadership.set(name, leading);
  }

  /** The consumer group's lag per partition of `topic`, asked of Kafka at scrape time. */
  trackConsumerLag(topic: string, lag: () => Promise<ReadonlyMap<number, number>>): void {
    this.consumerTopic = topic;
    this.consumerLag = lag;
  }

  trackProjector(progress: ProjectorProgress): void {
    this.projector = progress;
  }
}

export interface RelayProgress {
  pendingEvents(): number;
  /** Epoch ms of the oldest event not acknowledged yet; undefined when caught up. */
  oldestPendingAt(): number | undefined;
  /** Epoch ms of the last checkpoint save; undefined before the first. */
  checkpointSavedAt(): number | undefined;
}

export interface ProjectorLag {
  readonly events: number;
  /** Epoch ms of the oldest event not projected yet; undefined when caught up. */
  readonly oldestAt: number | undefined;
}

export interface ProjectorProgress {
  /** Undefined where this replica does not run the projector (another holds the lease). */
  lag(): Promise<ProjectorLag | undefined>;
}

/** A gauge with one sample per relay, each read from what the relay tracks here, at scrape time. */
function gaugePerRelay<T>(
  registry: Registry,
  name: string,
  help: string,
  tracked: ReadonlyMap<string, T>,
  value: (entry: T) => number,
): void {
  new Gauge({
    name,
    help,
    labelNames: ['relay'] as const,
    registers: [registry],
    collect() {
      for (const [relay, entry] of tracked) this.set({ relay }, value(entry));
    },
  });
}

/** A gauge of the projector's lag, sampled only when this replica runs the projector. */
function projectorGauge(
  registry: Registry,
  name: string,
  help: string,
  projectorLag: () => Promise<ProjectorLag | undefined>,
  value: (lag: ProjectorLag) => number,
): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      const lag = await projectorLag();
      if (lag) this.set(value(lag));
    },
  });
}

function ageSeconds(since: number | undefined): number {
  return since === undefined ? 0 : Math.max(0, (Date.now() - since) / 1000);
}

/** The process's metrics: one registry, shared by every component of the service. */
export const metrics = new ServiceMetrics();
