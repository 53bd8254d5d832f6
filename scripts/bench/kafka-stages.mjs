#!/usr/bin/env node
/* global setTimeout */
/**
 * Where the time from POST to run goes on the Kafka shape: the embedded pair with KAFKA_BROKERS (a
 * broker of its own, or --brokers), a webhook, then deliveries at a fixed offered rate on
 * 127.0.0.1. Each DeliveryAccepted's commit (store created_at) is matched to its Kafka message's
 * timestamp (the relay's produce) and to its RunCreated's commit: p50/p99 of accepted → Kafka (the
 * relay), Kafka → run (the dispatcher: consume, verify against the store, append the run) and the
 * whole, and the 202s' own HTTP latency. Prints one JSON line. Run it from each checkout of an A/B
 * (it starts that checkout's dist/).
 *
 *   node scripts/bench/kafka-stages.mjs --rate 1000 --seconds 6 [--brokers 127.0.0.1:9092]
 *
 * --build DIR starts that checkout's dist/ instead (its scripts/bench/bench-kit.mjs), so that one
 * copy of this script times both sides of an A/B, an older base included.
 *
 * --warm N: deliveries sent first, then a 2 s pause (500; 0: none, as the whole bench's first Kafka
 * point runs right after the start); --connections N (16; the whole bench offers over 64). The line
 * also gives the whole's p50 for each second of the window (by_second), where a cold start shows.
 */
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import kafkajs from 'kafkajs';
import { join } from 'node:path';
import { BODY, startKafkaBroker } from './bench-kit.mjs';
import { count, positiveInteger, readOptions, text } from './command-line.mjs';
import { percentile } from './store-timing.mjs';

const options = readOptions(
  process.argv.slice(2),
  { rate: 1000, seconds: 6, brokers: undefined, warm: 500, connections: 16, build: undefined },
  { rate: positiveInteger, seconds: positiveInteger, brokers: text, warm: count, connections: positiveInteger, build: text },
);
const { setUpWebhook, startStack } = await import(
  options.build ? join(options.build, 'scripts', 'bench', 'bench-kit.mjs') : './bench-kit.mjs'
);
const broker = options.brokers ? undefined : startKafkaBroker();
const brokers = options.brokers ?? broker.brokers;
const stack = await startStack({ label: 'kafka-stages', extraEnv: { KAFKA_BROKERS: brokers } });
try {
  const hook = await setUpWebhook(stack.baseUrl, stack.token, 'kafka-stages');
  const fire = (extra) =>
    autocannon({
      url: `${stack.baseUrl}${hook.path}`,
      method: 'POST',
      headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json' },
      body: BODY,
      ...extra,
    });
  if (options.warm > 0) {
    await fire({ connections: 8, amount: options.warm });
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  const since = Date.now();
  const http = await fire({ connections: options.connections, overallRate: options.rate, duration: options.seconds });
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const db = new Database(stack.storeFile, { readonly: true });
  const accepted = db.prepare("SELECT created_at, data FROM events WHERE type = 'DeliveryAccepted' AND created_at >= ?").all(since);
  const producedAt = await producedTimes(brokers, since, accepted.length);
  const runAt = new Map(
    db
      .prepare("SELECT stream_id, created_at FROM events WHERE type = 'RunCreated' AND created_at >= ?")
      .all(since)
      .map((row) => [row.stream_id, Number(row.created_at)]),
  );
  const stages = { accepted_to_kafka: [], kafka_to_run: [], accepted_to_run: [] };
  const bySecond = [];
  for (const row of accepted) {
    const { deliveryId, runId } = JSON.parse(row.data);
    const at = Number(row.created_at);
    const produced = producedAt.get(deliveryId);
    const run = runAt.get(`run-${runId}`);
    if (run === undefined || produced === undefined) continue;
    stages.accepted_to_kafka.push(produced - at);
    stages.kafka_to_run.push(run - produced);
    stages.accepted_to_run.push(run - at);
    (bySecond[Math.floor((at - since) / 1000)] ??= []).push(run - at);
  }
  db.close();
  const summary = Object.fromEntries(
    Object.entries(stages).map(([name, values]) => [name, { p50_ms: percentile(values, 50), p99_ms: percentile(values, 99) }]),
  );
  process.stdout.write(
    `${JSON.stringify({
      rate: options.rate,
      accepted: accepted.length,
      matched: stages.accepted_to_run.length,
      ...summary,
      http_202: { p50_ms: http.latency.p50, p99_ms: http.latency.p99 },
      by_second: [...bySecond].map((values) => (values ? percentile(values, 50) : null)),
    })}\n`,
  );
} finally {
  await stack.stop();
  broker?.clean();
}

/**
 * Each delivery's Kafka message timestamp (the producer's), read back from the events topic from
 * the first offset at `since` on: a broker shared by several runs (--brokers) holds the earlier
 * runs' messages too, which are not read again.
 */
async function producedTimes(brokerList, since, expected) {
  const kafka = new kafkajs.Kafka({ brokers: brokerList.split(','), logLevel: kafkajs.logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((topic) => topic.endsWith('webhooks.events.v1'));
  const starts = [];
  for (const topic of topics)
    for (const { partition, offset } of await admin.fetchTopicOffsetsByTimestamp(topic, since))
      if (offset !== '-1') starts.push({ topic, partition, offset });
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: `kafka-stages-${Date.now()}` });
  const times = new Map();
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: false });
  // A seek before the member has its partitions can be lost: seek once the group is joined.
  const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
  await consumer.run({
    eachMessage: async ({ message }) => {
      try {
        const deliveryId = JSON.parse(String(message.value))?.deliveryId;
        if (typeof deliveryId === 'string') times.set(deliveryId, Number(message.timestamp));
      } catch {
        // A value that is not JSON (it never is from the relay): nothing to time.
      }
    },
  });
  await joined;
  for (const start of starts) consumer.seek(start);
  // Until every delivery accepted since `since` is read back, or 20 s.
  for (const deadline = Date.now() + 20_000; times.size < expected && Date.now() < deadline;)
    await new Promise((resolve) => setTimeout(resolve, 250));
  await consumer.disconnect();
  return times;
}
