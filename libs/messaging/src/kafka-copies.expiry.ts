import { TOPIC_RETENTION_MS } from './kafka-topics.contract';

/**
 * By when Kafka's copies of an erased payload are gone, for an erasure that ended at `finishedAt`:
 * every copy was written before the end, and the topics that may carry one (webhooks.events.v1,
 * routines.runs.v1) drop it within their retention. Taken from the retention this service gives the
 * topics it creates (TOPIC_RETENTION_MS), not read from the brokers: a retention an operator set
 * on a topic by hand is not seen here (the start-up check says when it is longer than the payloads').
 * The dead-letter topic carries references only, never a payload.
 */
export function kafkaCopiesExpireBy(finishedAt: Date): Date {
  const retention = Math.max(TOPIC_RETENTION_MS.webhookEvents ?? 0, TOPIC_RETENTION_MS.routineRuns ?? 0);
  return new Date(finishedAt.getTime() + retention);
}
