#!/usr/bin/env node
/**
 * What kafkajs, as installed here, costs per record: encoding one (as its producer does for each
 * message of a produce request) and decoding one (as its consumer does), with 0, 7 and 14 headers
 * (the relays send fourteen: the service's and CloudEvents'), in µs. No broker, no I/O: run it in
 * two checkouts (`--modules <checkout>/node_modules`) to compare an install with another, e.g.
 * kafkajs as published against patches/kafkajs+2.2.4.patch.
 *
 *   node scripts/bench/kafka-record-cost.mjs [--records 50000] [--modules DIR]
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { REPO } from './bench-kit.mjs';
import { positiveInteger, readOptions, text } from './command-line.mjs';

const options = readOptions(
  process.argv.slice(2),
  { records: 50_000, modules: join(REPO, 'node_modules') },
  { records: positiveInteger, modules: text },
);
const kafkajs = createRequire(join(options.modules, 'kafkajs', 'package.json'));
const Record = kafkajs('./src/protocol/recordBatch/record/v0');
const RecordDecoder = kafkajs('./src/protocol/recordBatch/record/v0/decoder');
const Decoder = kafkajs('./src/protocol/decoder');
const load = createRequire(import.meta.url);

/** One DeliveryAccepted as the ingress's relay sends it: the built service's own encoding (npm run build first). */
const built = join(REPO, 'dist', 'libs', 'messaging', 'src');
const { encodeEvent } = load(join(built, 'kafka-message.codec.js'));
const { routeEvent } = load(join(built, 'kafka-topics.contract.js'));
const delivery = {
  deliveryId: 'dlv_01JDZ3V7Q8X9Y0Z1A2B3C4D5E6',
  webhookId: 'whk_01JDZ3V7Q8X9Y0Z1A2B3C4D5E6',
  routineId: 'rtn_01JDZ3V7Q8X9Y0Z1A2B3C4D5E6',
  accountId: 'acc_01JDZ3V7Q8X9Y0Z1A2B3C4D5E6',
  receivedAt: '2026-11-29T08:30:00.000Z',
  idempotencyKey: null,
  data: { alert: 'disk full', note: 'x'.repeat(600) },
};
const event = {
  id: '0f8b1c7e-5d2a-4e8b-9a61-3c1d2e4f5a6b',
  streamId: `delivery-${delivery.deliveryId}`,
  revision: 0n,
  position: { commit: 42n, prepare: 42n },
  type: 'DeliveryAccepted',
  data: delivery,
  metadata: { schemaVersion: 2, traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
  createdAt: new Date(Date.UTC(2026, 10, 29, 8, 30)),
};
const message = encodeEvent(event, routeEvent(event));
const HEADERS = Object.entries(message.headers);
const VALUE = message.value;

/** µs per call of `work(i)` over `n` calls, the third of three rounds (the first two warm the JIT up). */
function microseconds(n, work) {
  let elapsed = 0;
  for (let round = 0; round < 3; round += 1) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i += 1) work(i);
    elapsed = Number(process.hrtime.bigint() - started) / 1000;
  }
  return Math.round((elapsed / n) * 10) / 10;
}

const rows = [];
for (const count of [0, 7, HEADERS.length]) {
  const headers = Object.fromEntries(HEADERS.slice(0, count));
  const record = (i) => Record({ offsetDelta: i % 100, timestampDelta: 0, key: message.key, value: VALUE, headers });
  const encoded = record(0).buffer;
  const decode = () => {
    const outer = new Decoder(encoded);
    RecordDecoder(new Decoder(outer.readBytes(outer.readVarInt())), { firstOffset: '0', firstTimestamp: '0', magicByte: 2 });
  };
  rows.push({ headers: count, encode_us: microseconds(options.records, record), decode_us: microseconds(options.records, decode) });
}
console.log(JSON.stringify({ kafkajs: kafkajs('./package.json').version, modules: options.modules, records: options.records, rows }));
