import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** `npm start` builds first (npm's prestart): with nothing changed since the last build, that build does nothing. */
describe('npm run build (scripts/build/build.mjs)', () => {
  it('with dist/ current (npm test built it just before), it compiles nothing and says so, in well under a second', () => {
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build', 'build.mjs')], {
      cwd: ROOT,
      env: { ...process.env, WTS_BUILD_VERBOSE: '1' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stderr).toMatch(/^build: dist\/ is current \(\d+ ms\)\n$/);
    // The script's own time, as it reports it: Node's start-up before it is the machine's (seconds
    // when parallel suites load it), not the build's.
    expect(Number(/\((\d+) ms\)/.exec(result.stderr)?.[1])).toBeLessThan(1_500);
  });
});
