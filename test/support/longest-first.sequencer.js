/**
 * The order suites start in: the longest first, so that on parallel workers a long suite never
 * starts last and runs alone at the end; and the heavy ones — end-to-end suites (service processes)
 * and suites that start a Kafka broker of their own — spread between the others, never two in a
 * row, so that the workers do not all start brokers and services at the same moment.
 *
 * Durations come from `test/support/suite-durations.json` (seconds per suite, written by
 * `node scripts/test/suite-durations.mjs` from a `jest --json` run); a suite missing from it — a
 * new one — goes by its size, as jest's own default does on a machine with no cache. The table
 * only orders: a stale entry makes a run slower, never wrong.
 */
const { readFileSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds a suite with no recorded duration is assumed to take, per KiB of its source. */
const SECONDS_PER_KIB = 0.25;
/** What a suite that starts a Kafka broker of its own calls (test/support/kafka-broker.ts, kafka-secured-broker.ts). */
const STARTS_A_BROKER = /startSecuredKafkaBroker|startKafkaBroker\(|runKafkaScript|kafkaScriptOrThrow|KAFKA_SCRIPT/;

function recordedDurations(rootDir) {
  try {
    return JSON.parse(readFileSync(join(rootDir, 'test/support/suite-durations.json'), 'utf8'));
  } catch {
    return {};
  }
}

function isHeavy(test) {
  return test.path.endsWith('.e2e.spec.ts') || STARTS_A_BROKER.test(readFileSync(test.path, 'utf8'));
}

class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    if (tests.length === 0) return tests;
    const rootDir = tests[0].context.config.rootDir;
    const durations = recordedDurations(rootDir);
    const expected = new Map();
    for (const test of tests) {
      const recorded = durations[relative(rootDir, test.path)];
      expected.set(test, typeof recorded === 'number' ? recorded : (statSync(test.path).size / 1024) * SECONDS_PER_KIB);
    }
    const longestFirst = [...tests].sort((a, b) => expected.get(b) - expected.get(a));
    const heavy = [];
    const light = [];
    for (const test of longestFirst) (isHeavy(test) ? heavy : light).push(test);
    // Heavy, light, heavy, light …: while both last, every other suite started is a light one.
    const ordered = [];
    while (heavy.length > 0 || light.length > 0) {
      if (heavy.length > 0) ordered.push(heavy.shift());
      if (light.length > 0) ordered.push(light.shift());
    }
    return ordered;
  }
}

module.exports = LongestFirstSequencer;
