import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How to start a worker thread whose entry is `<directory>/<baseName>.ts`: the compiled `.js`
 * beside it in dist/; under the tests (TypeScript sources, no build) a loader that transpiles the
 * `.ts` entry on the fly (it reads `workerData.entry`).
 */
export function workerThreadScript(directory: string, baseName: string): { readonly script: string; readonly entry: string } {
  const compiled = join(directory, `${baseName}.js`);
  const entry = join(directory, `${baseName}.ts`);
  return existsSync(compiled)
    ? { script: compiled, entry }
    : { script: join(__dirname, 'sqlite', 'testing', 'typescript-worker.loader.js'), entry };
}
