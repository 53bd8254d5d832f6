#!/usr/bin/env node
/* global setTimeout, clearTimeout */
/**
 * Where the Kafka shape's POST → run time goes, by stage, at a low rate (issue 34). For each
 * checkout given, then again in reverse order: its ingress and dispatcher from its dist/ with
 * KAFKA_BROKERS set to one test broker started here (127.0.0.1), a 3 s warm-up at 100/s, then 6 s
 * at 250/s (--rate N) over 16 connections. Per delivery of those 6 s: the store's commit of DeliveryAccepted
 * → the Kafka message's timestamp (the relay's send) → the store's commit of RunCreated. Prints
 * p50 / p99 of each stage.
 *
 *   node scripts/bench/kafka-stages.mjs [--rate 1000] /work/wt-4b /work/main
 */
import Database from 'better-sqlite3';
import { Kafka, logLevel } from 'kafkajs';
import { BODY, startKafkaBroker } from './bench-kit.mjs';
const args = process.argv.slice(2);
const rateAt = args.indexOf('--rate');
const RATE = rateAt === -1 ? 250 : Number(args.splice(rateAt, 2)[1]);
const dirs = args;
const broker = startKafkaBroker();
const pct = (a, p) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
try {
  for (const dir of [...dirs, ...dirs.reverse()]) {
    const kit = await import(`${dir}/scripts/bench/bench-kit.mjs`);
    const stack = await kit.startStack({ label: 'ks', extraEnv: { KAFKA_BROKERS: broker.brokers } });
    try {
      const hook = await kit.setUpWebhook(stack.baseUrl, stack.token, 'ks');
      const headers = { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json' };
      await kit.load({ baseUrl: stack.baseUrl, path: hook.path, headers, body: BODY, connections: 16, seconds: 3, overallRate: 100 });
      const from = Date.now();
      const http = await kit.load({
        baseUrl: stack.baseUrl,
        path: hook.path,
        headers,
        body: BODY,
        connections: 16,
        seconds: 6,
        overallRate: RATE,
      });
      const to = Date.now();
      await kit.sleep(3000);
      const db = new Database(stack.storeFile, { readonly: true });
      const rows = db
        .prepare(
          `SELECT json_extract(d.data, '$.deliveryId') AS id, d.created_at AS accepted, r.created_at AS created FROM events d JOIN events r ON r.stream_id = 'run-' || json_extract(d.data, '$.runId') WHERE d.category = 'delivery-' AND d.type = 'DeliveryAccepted' AND d.created_at >= ? AND d.created_at < ?`,
        )
        .all(from, to);
      db.close();
      const kafka = new Kafka({ brokers: broker.brokers.split(','), logLevel: logLevel.NOTHING });
      const admin = kafka.admin();
      await admin.connect();
      const topics = (await admin.listTopics()).filter((t) => t.includes('webhook'));
      await admin.disconnect();
      const consumer = kafka.consumer({ groupId: `stages-${Date.now()}` });
      await consumer.connect();
      await consumer.subscribe({ topics, fromBeginning: true });
      const sent = new Map();
      await new Promise((resolve) => {
        let timer = setTimeout(resolve, 5000);
        consumer.run({
          eachMessage: async ({ message }) => {
            const text = message.value?.toString() ?? '';
            const m = /"deliveryId":"([^"]+)"/.exec(text);
            if (m) sent.set(m[1], Number(message.timestamp));
            clearTimeout(timer);
            timer = setTimeout(resolve, 1500);
          },
        });
      });
      await consumer.disconnect();
      const toKafka = [],
        fromKafka = [],
        total = [];
      for (const row of rows) {
        const t = sent.get(row.id);
        if (t === undefined) continue;
        toKafka.push(t - Number(row.accepted));
        fromKafka.push(Number(row.created) - t);
        total.push(Number(row.created) - Number(row.accepted));
      }
      console.log(
        `${dir}: ${total.length}/${rows.length} matched; store->kafka p50/p99 ${pct(toKafka, 50)}/${pct(toKafka, 99)}, kafka->run ${pct(fromKafka, 50)}/${pct(fromKafka, 99)}, total ${pct(total, 50)}/${pct(total, 99)}; HTTP p50/p99 ${http.p50_ms}/${http.p99_ms} (topics ${topics})`,
      );
    } finally {
      await stack.stop();
    }
  }
} finally {
  broker.kill();
  broker.clean();
}
