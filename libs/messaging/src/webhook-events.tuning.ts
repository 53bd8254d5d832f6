export interface ConsumerTuning {
  /** A crashed member's partitions move to the others after this long. */
  readonly sessionTimeoutMs: number;
  /** Below a third of the session; also while a handler runs, so a slow handler does not cost the membership. */
  readonly heartbeatIntervalMs: number;
  readonly partitionsConsumedConcurrently: number;
  readonly retryInitialDelayMs: number;
  readonly retryMaxDelayMs: number;
  /** Failures classified "park" are retried this many times in all before the message is parked. */
  readonly attemptsBeforeParking: number;
  /**
   * Messages of one partition handled at once (their runs share the store's commits); their offsets
   * are committed together, once every one of them is done with.
   */
  readonly messagesInFlight: number;
  /** While a slice waits on a message being retried, what is done before it is committed this often. */
  readonly commitEveryMs: number;
  /**
   * A finished slice's offsets are committed within this long, together with the slices finished
   * meanwhile, without holding up the next fetch (a stop commits them at once).
   */
  readonly commitDelayMs: number;
}

export const DEFAULT_CONSUMER_TUNING: ConsumerTuning = {
  sessionTimeoutMs: 10_000,
  heartbeatIntervalMs: 1000,
  partitionsConsumedConcurrently: 4,
  retryInitialDelayMs: 100,
  retryMaxDelayMs: 5000,
  attemptsBeforeParking: 5,
  messagesInFlight: 256,
  commitEveryMs: 500,
  commitDelayMs: 100,
};

/** After a crash kafkajs does not recover from, a new member joins 1 s later; while joining fails, 2 s, 4 s … up to 10 s. */
export const CONSUMER_RESTART_BACKOFF = { initialDelayMs: 1000, maxDelayMs: 10_000 } as const;
