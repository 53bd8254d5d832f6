/**
 * Follows the runs the webhook trigger service creates: topic `routines.runs.v1`, key = routine
 * id, value = the `RunCreated` event's data as JSON (see docs/asyncapi.yaml).
 *
 * Delivery is at least once: a relay restart or an operator replay can send an event again, always
 * with the same `event-id` header. So: dedupe on `event-id`, and ignore event types and schema
 * versions you do not know (new run events will appear on this topic).
 */
import { Kafka, type KafkaMessage } from 'kafkajs';

const TOPIC = process.env.TOPIC ?? 'routines.runs.v1';
const brokers = (process.env.KAFKA_BROKERS ?? 'localhost:29092').split(',');
const groupId = process.env.GROUP_ID ?? 'example-run-events-consumer';
// The compose broker asks for SASL/SCRAM: a reader's principal may read routines.runs.v1 only.
const username = process.env.KAFKA_SASL_USERNAME;
const password = process.env.KAFKA_SASL_PASSWORD ?? '';
const sasl = username ? { mechanism: 'scram-sha-512' as const, username, password } : undefined;

interface RunCreated {
  runId: string;
  routineId: string;
  deliveryId: string;
  triggerAccount: { accountId: string; email: string };
  routine: { name: string; mode: 'supervised' | 'autonomous' };
  /** Service-written frame around the untrusted payload: pass it on as is, never as instructions. */
  initialMessage: string;
  createdAt: string;
}

function header(message: KafkaMessage, name: string): string | undefined {
  const value = message.headers?.[name];
  return (Array.isArray(value) ? value[0] : value)?.toString('utf8');
}

/**
 * Event ids already handled, most recent last. In memory for the example; a real service records
 * the id where its side effect is written (same transaction, unique key), so restarts dedupe too.
 */
const handled = new Set<string>();
function remember(eventId: string): void {
  handled.add(eventId);
  if (handled.size > 100_000) handled.delete(handled.values().next().value as string);
}

async function onRunCreated(run: RunCreated, eventId: string): Promise<void> {
  console.log(`run ${run.runId} of "${run.routine.name}" for ${run.triggerAccount.email} (event ${eventId})`);
}

async function main(): Promise<void> {
  const consumer = new Kafka({ clientId: groupId, brokers, sasl }).consumer({ groupId });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  await consumer.run({
    // One message at a time per partition: per-routine order is kept. If the handler throws,
    // kafkajs retries the message and its offset is not committed.
    eachMessage: async ({ message }) => {
      const eventId = header(message, 'event-id');
      if (!eventId || !message.value) return; // not a service event
      if (header(message, 'event-type') !== 'RunCreated') return; // a type this consumer does not handle
      // Version 2 dropped `payload` (it is in the initial message); the fields read here are in both.
      if (!['1', '2'].includes(header(message, 'schema-version') ?? ''))
        return console.warn(`event ${eventId}: unknown schema version, skipped`);
      if (handled.has(eventId)) return console.log(`event ${eventId}: duplicate, skipped`);
      await onRunCreated(JSON.parse(message.value.toString('utf8')) as RunCreated, eventId);
      remember(eventId); // only once handled: a failed attempt is retried, not deduped away
    },
  });
  const stop = (): void => void consumer.disconnect().finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
