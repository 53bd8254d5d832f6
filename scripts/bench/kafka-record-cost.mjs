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
const load = createRequire(join(options.modules, 'kafkajs', 'package.json'));
const Record = load('./src/protocol/recordBatch/record/v0');
const RecordDecoder = load('./src/protocol/recordBatch/record/v0/decoder');
const Decoder = load('./src/protocol/decoder');

/** The relays' headers of one DeliveryAccepted, in their order (kafka-message.codec.ts). */
const HEADERS = Object.entries({
  'event-type': 'DeliveryAccepted',
  'event-id': '0f8b1c7e-5d2a-4e8b-9a61-3c1d2e4f5a6b',
  'schema-version': '2',
  'stream-id': 'delivery-dlv_01JDZ3V7Q8X9Y0Z1A2B3C4D5E6',
  'stream-revision': '0',
  position: '42/42',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  ce_specversion: '1.0',
  ce_id: '0f8b1c7e-5d2a-4e8b-9a61-3c1d2e4f5a6b',
  ce_source: '/webhook-trigger-service/webhooks.events.v1',
  ce_type: 'com.webhook-trigger-service.delivery.accepted',
  ce_time: '2026-11-29T08:30:00.000Z',
  'content-type': 'application/json',
  ce_subject: 'rtn_01JDZ3V7Q8X9Y0Z1A2B3C4D5E6',
});
const VALUE = JSON.stringify({ deliveryId: 'dlv_01JDZ3V7Q8X9Y0Z1A2B3C4D5E6', data: { alert: 'disk full', note: 'x'.repeat(600) } });

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
for (const count of [0, 7, 14]) {
  const headers = Object.fromEntries(HEADERS.slice(0, count));
  const record = (i) => Record({ offsetDelta: i % 100, timestampDelta: 0, key: `whk_${i}`, value: VALUE, headers });
  const encoded = record(0).buffer;
  const decode = () => {
    const outer = new Decoder(encoded);
    RecordDecoder(new Decoder(outer.readBytes(outer.readVarInt())), { firstOffset: '0', firstTimestamp: '0', magicByte: 2 });
  };
  rows.push({ headers: count, encode_us: microseconds(options.records, record), decode_us: microseconds(options.records, decode) });
}
console.log(JSON.stringify({ kafkajs: load('./package.json').version, modules: options.modules, records: options.records, rows }));
