'use strict';
/**
 * A second OS process for the multi-process tests: appends through the real SqliteEventStore.
 * There is no build output in tests, so the TypeScript sources are transpiled on require.
 *
 * argv[2] is a JSON job:
 *   { mode: 'contend', file, tag, count, shared, races } — prints "ready", waits for "go" on stdin,
 *     then interleaves own-stream, shared-stream ('any') and race-stream ('no_stream') appends and
 *     prints one JSON summary line.
 *   { mode: 'append-and-die', file, stream, id } — appends one event, prints "appended", and
 *     SIGKILLs itself without closing the store.
 *   { mode: 'open-rounds' } — prints "ready", then for each stdin line `{"file":…,"at":<epoch ms>}`
 *     spins until `at`, opens and closes a store on that (new) file, and prints "ok" or the error.
 */
const fs = require('node:fs');
const crypto = require('node:crypto');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  module._compile(outputText, filename);
};

const { SqliteEventStore } = require('../sqlite-event-store.adapter.ts');

const event = (type) => ({ id: crypto.randomUUID(), type, data: { pid: process.pid }, metadata: {} });

async function contend(job, store) {
  const summary = { own: 0, shared: 0, raceWins: [], raceConflicts: 0 };
  for (let index = 0; index < job.count; index += 1) {
    const own = await store.append(`${job.tag}-own-${index}`, [event('Own')], 'no_stream');
    if (own.kind === 'appended') summary.own += 1;
    const shared = await store.append(job.shared, [event('Shared')], 'any');
    if (shared.kind === 'appended') summary.shared += 1;
    if (index < job.races) {
      const race = await store.append(`race-${index}`, [event('Race')], 'no_stream');
      if (race.kind === 'appended') summary.raceWins.push(index);
      else summary.raceConflicts += 1;
    }
  }
  return summary;
}

function waitForGo() {
  return new Promise((resolve) => {
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      if (chunk.includes('go')) resolve();
    });
  });
}

function openRounds() {
  let buffer = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop();
    for (const line of lines) {
      const round = JSON.parse(line);
      while (Date.now() < round.at); // all workers open at the same moment
      try {
        SqliteEventStore.open(round.file).close();
        process.stdout.write('ok\n');
      } catch (error) {
        process.stdout.write(`${String(error && error.message).replace(/\n/g, ' ')}\n`);
      }
    }
  });
  process.stdin.on('end', () => process.exit(0));
  process.stdout.write('ready\n');
}

async function main() {
  const job = JSON.parse(process.argv[2]);
  if (job.mode === 'open-rounds') return openRounds();
  const store = SqliteEventStore.open(job.file);
  if (job.mode === 'append-and-die') {
    await store.append(job.stream, [{ ...event('Durable'), id: job.id }], 'no_stream');
    process.stdout.write('appended\n', () => process.kill(process.pid, 'SIGKILL'));
    return;
  }
  process.stdout.write('ready\n');
  await waitForGo();
  const summary = await contend(job, store);
  await store.close();
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
