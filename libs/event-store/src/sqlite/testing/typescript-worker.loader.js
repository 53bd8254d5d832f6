'use strict';
/**
 * Tests run the TypeScript sources (there is no build output under jest): this loads a worker
 * thread's .ts entry (workerData.entry) by transpiling .ts files on require, as append-worker.js
 * does for the multi-process tests. Transpiled files are cached on disk by path and mtime, so the
 * many stores a test run opens do not each pay for the compiler. The build ships the compiled
 * worker and never uses this. The `@wts/*` imports resolve to each lib's sources as tsconfig.json's
 * paths say (the build rewrites them instead), and decorators compile as the project's do.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { workerData } = require('node:worker_threads');
const Module = require('node:module');

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..', '..');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveAlias(request, ...rest) {
  const alias = /^@wts\/([a-z-]+)$/.exec(request);
  return resolveFilename.call(this, alias ? path.join(repoRoot, 'libs', alias[1], 'src', 'index.ts') : request, ...rest);
};

const cacheDir = path.join(os.tmpdir(), 'wts-ts-worker-cache');
fs.mkdirSync(cacheDir, { recursive: true });
let ts;
/** Part of the cache key: a change of the compiler options below compiles every file again. */
const COMPILE_OPTIONS_VERSION = 2;

require.extensions['.ts'] = (module, filename) => {
  const stat = fs.statSync(filename);
  const key = crypto.createHash('sha1').update(`${COMPILE_OPTIONS_VERSION}:${filename}:${stat.mtimeMs}:${stat.size}`).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  let output;
  try {
    output = fs.readFileSync(cached, 'utf8');
  } catch {
    ts ??= require('typescript');
    output = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
      fileName: filename,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
      },
    }).outputText;
    const temporary = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    fs.writeFileSync(temporary, output);
    fs.renameSync(temporary, cached);
  }
  module._compile(output, filename);
};

require(workerData.entry);
