import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { assertBuilt } from '../support/service-processes';

const LIBS = join(__dirname, '..', '..', 'dist', 'libs');

/** Clients and engines only some configurations use: each costs start-up time (tenths of a second) to load. */
const OPTIONAL = ['@eventstore/db-client', 'pg', 'ioredis', 'recheck', '@bufbuild/cel', 'ajv'];

/** The packages of OPTIONAL that requiring these built libraries loads, in a fresh Node process. */
function optionalPackagesLoadedBy(libraries: readonly string[], packages: readonly string[] = []): string[] {
  const modules = [...libraries.map((name) => join(LIBS, name, 'src', 'index.js')), ...packages];
  const script = `
    for (const module of ${JSON.stringify(modules)}) require(module);
    const loaded = Object.keys(require.cache);
    const optional = ${JSON.stringify(OPTIONAL)};
    process.stdout.write(JSON.stringify(optional.filter((name) => loaded.some((file) => file.includes('/node_modules/' + name + '/')))));
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as string[];
}

/**
 * Start-up loads only what the embedded default runs: the EventStoreDB, PostgreSQL and Redis
 * clients load when their configuration chooses them, CEL and Ajv with the first filter or schema,
 * recheck with the first pattern to check (docs/bench/consolidation/README.md, "Start-up").
 */
describe('start-up: optional packages load on first use', () => {
  beforeAll(() => assertBuilt());

  it('loads none of them with the libraries both services import at start', () => {
    expect(
      optionalPackagesLoadedBy(['domain', 'event-store', 'read-models', 'application', 'platform', 'config', 'observability']),
    ).toEqual([]);
  });

  it('sees one that is loaded (the check itself works)', () => {
    expect(optionalPackagesLoadedBy(['read-models'], ['pg', 'recheck'])).toEqual(['pg', 'recheck']);
  });
});
