#!/usr/bin/env node
/**
 * Writes test/support/suite-durations.json — each suite's duration in seconds, which the test
 * sequencer (test/support/longest-first.sequencer.js) starts longest first — from a jest run's
 * JSON report:
 *
 *   npx jest --json --outputFile=/tmp/jest.json; node scripts/test/suite-durations.mjs /tmp/jest.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const [reportPath] = process.argv.slice(2);
if (!reportPath) {
  process.stderr.write('usage: node scripts/test/suite-durations.mjs <jest --json report>\n');
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const durations = Object.fromEntries(
  report.testResults
    .map((suite) => [relative(root, suite.name), Math.round((suite.endTime - suite.startTime) / 100) / 10])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
const target = join(root, 'test/support/suite-durations.json');
writeFileSync(target, `${JSON.stringify(durations, null, 2)}\n`);
const total = Object.values(durations).reduce((sum, seconds) => sum + seconds, 0);
process.stdout.write(`${Object.keys(durations).length} suites, ${Math.round(total)} s in all, written to ${relative(root, target)}\n`);
