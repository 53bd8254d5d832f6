/* global setInterval */
/**
 * Preloaded into a service by the soak run (node --require): every SOAK_PROBE_INTERVAL_MS it appends
 * one JSON line with its heap and its active handles to SOAK_PROBE_FILE. The timer is unref'd, so
 * it never keeps the service alive; nothing else of the service changes.
 */
const { appendFileSync } = require('node:fs');
const { getHeapStatistics } = require('node:v8');
const { isMainThread } = require('node:worker_threads');

const file = process.env.SOAK_PROBE_FILE;
// --require also runs in worker threads (the SQLite writer): only the main thread reports.
if (file && isMainThread) {
  const name = process.env.SOAK_PROBE_NAME || 'service';
  setInterval(
    () => {
      const heap = getHeapStatistics();
      const line = {
        at: Date.now(),
        name,
        heap_used_mib: heap.used_heap_size / 1048576,
        heap_total_mib: heap.total_heap_size / 1048576,
        handles: process.getActiveResourcesInfo().length,
      };
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    },
    Number(process.env.SOAK_PROBE_INTERVAL_MS || 5000),
  ).unref();
}
