/**
 * The order suites start in: the longest first, so that on parallel workers a long suite never
 * starts last and runs alone at the end. Durations come from `test/support/suite-durations.json`
 * (seconds per suite, written by `node scripts/test/suite-durations.mjs` from a `jest --json` run);
 * a suite missing from it — a new one — goes by its size, as jest's own default does on a machine
 * with no cache. The table only orders: a stale entry makes a run slower, never wrong.
 */
const { readFileSync, statSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** Seconds a suite with no recorded duration is assumed to take, per KiB of its source. */
const SECONDS_PER_KIB = 0.25;

function recordedDurations(rootDir) {
  try {
    return JSON.parse(readFileSync(join(rootDir, 'test/support/suite-durations.json'), 'utf8'));
  } catch {
    return {};
  }
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
    return [...tests].sort((a, b) => expected.get(b) - expected.get(a));
  }
}

module.exports = LongestFirstSequencer;
