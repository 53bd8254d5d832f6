#!/usr/bin/env node
// `npm run build`: an incremental compile into dist/. tsc re-emits only what changed since the last
// build (its state is dist/.tsbuildinfo, so deleting dist/ means a full build), tsc-alias rewrites
// the @wts/* imports of what was emitted, and outputs whose source was deleted are removed — a
// stale module left in dist/ could otherwise still be loaded. When no input changed since the last
// build (the same source files with the same sizes and times, the same tsconfig and lock file) it
// does nothing at all.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = join(root, 'dist');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const started = Date.now();
const stamp = join(dist, '.build-inputs');
const inputs = inputsDigest();
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === inputs) {
  if (process.env.WTS_BUILD_VERBOSE) process.stderr.write(`build: dist/ is current (${Date.now() - started} ms)\n`);
  process.exit(0);
}
rmSync(stamp, { force: true });
execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', join(dist, '.tsbuildinfo')], {
  cwd: root,
  stdio: 'inherit',
});
execFileSync(bin('tsc-alias'), ['-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
const removed = pruneOrphans(dist);
writeFileSync(stamp, inputs);
if (process.env.WTS_BUILD_VERBOSE) process.stderr.write(`build: ${Date.now() - started} ms, ${removed} orphaned outputs removed\n`);

// Deletes the .js (and .js.map) files under dist/ whose .ts source no longer exists; returns how many.
function pruneOrphans(directory) {
  if (!existsSync(directory)) return 0;
  let removed = 0;
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) {
      removed += pruneOrphans(path);
      continue;
    }
    const output = /\.js(\.map)?$/.exec(name);
    if (!output) continue;
    const source = join(root, relative(dist, path)).replace(/\.js(\.map)?$/, '.ts');
    if (!existsSync(source)) {
      rmSync(path);
      removed++;
    }
  }
  return removed;
}

// What the build reads: every .ts under apps/ and libs/ (path, size, mtime), the tsconfigs, the lock file.
function inputsDigest() {
  const hash = createHash('sha256');
  const add = (path) => {
    const stats = statSync(path);
    hash.update(`${relative(root, path)}\0${stats.size}\0${stats.mtimeMs}\n`);
  };
  const walk = (directory) => {
    for (const name of readdirSync(directory).sort()) {
      const path = join(directory, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) add(path);
    }
  };
  walk(join(root, 'apps'));
  walk(join(root, 'libs'));
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json', 'scripts/build/build.mjs']) add(join(root, file));
  return hash.digest('hex');
}
