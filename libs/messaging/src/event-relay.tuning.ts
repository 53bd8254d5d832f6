import { MAX_PRODUCE_REQUEST_BYTES } from './kafka-topics.contract';

export interface RelayTuning {
  /** At most this many events per produce request. */
  readonly maxBatchSize: number;
  /** At most this many bytes per produce request (keys, values, headers); a larger single event goes alone. */
  readonly maxBatchBytes: number;
  /** The buffer between the subscription and the pump holds at most this many bytes (one event always fits). */
  readonly maxBufferBytes: number;
  /** How long the first event of a batch waits for company before the batch is sent. */
  readonly lingerMs: number;
  readonly retryInitialDelayMs: number;
  readonly retryMaxDelayMs: number;
  /**
   * A single event the topic refuses as too large is tried this many times (a topic limit being
   * raised at start has time to take), then parked in the store (`parked-<event id>`) and passed:
   * one event never holds back the ones after it.
   */
  readonly tooLargeAttemptsBeforeParking: number;
}

export const DEFAULT_RELAY_TUNING: RelayTuning = {
  maxBatchSize: 500,
  maxBatchBytes: MAX_PRODUCE_REQUEST_BYTES,
  maxBufferBytes: 8 * MAX_PRODUCE_REQUEST_BYTES,
  lingerMs: 10,
  retryInitialDelayMs: 100,
  retryMaxDelayMs: 5000,
  tooLargeAttemptsBeforeParking: 5,
};

/**
 * The relay's producer gives up on a send quickly: kafkajs' own retries must not keep a send going
 * after the leader lost its session (a successor may be forwarding by then). One `sendBatch` lasts
 * at most RELAY_SEND_BUDGET_MS; the relay starts one only while its leadership lease has at least
 * that long to run, and retries failures itself (checking its leadership before each attempt).
 */
export const RELAY_PRODUCER_TIMING = {
  connectionTimeoutMs: 500,
  requestTimeoutMs: 1000,
  /** The broker's wait for the in-sync replicas (acks=-1): it answers before the client gives up. */
  ackTimeoutMs: 800,
  /** kafkajs requires at least one retry for an idempotent producer. */
  retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 200 },
} as const;

/** The longest one relay `sendBatch` can take: each attempt may (re)connect, then wait for its request. */
export const RELAY_SEND_BUDGET_MS =
  (RELAY_PRODUCER_TIMING.retry.retries + 1) * (RELAY_PRODUCER_TIMING.connectionTimeoutMs + RELAY_PRODUCER_TIMING.requestTimeoutMs) +
  RELAY_PRODUCER_TIMING.retry.retries * RELAY_PRODUCER_TIMING.retry.maxRetryTime;
