import { execFile } from 'node:child_process';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '..', '..', 'scripts', 'test', 'prerequisites.sh');

function runPrerequisites(env: Record<string, string>): Promise<{ code: number; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile('bash', [SCRIPT], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr, ms: Date.now() - started });
    });
  });
}

/** npm test's pre-test step, when it may not install: it stops at once and says what to run. */
describe('scripts/test/prerequisites.sh', () => {
  it('names what is missing and the exact install command, and stops within seconds', async () => {
    const result = await runPrerequisites({ WTS_TEST_PREREQUISITES: 'check', CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(result.code).toBe(1);
    expect(result.ms).toBeLessThan(15_000);
    expect(result.stderr).toContain('npm test cannot run: this machine lacks');
    expect(result.stderr).toContain('Chromium at /nonexistent/chromium');
    expect(result.stderr).toMatch(/sudo apt-get update && sudo apt-get install -y --no-install-recommends .*\bchromium\b/);
  });

  it('refuses an unknown mode', async () => {
    const result = await runPrerequisites({ WTS_TEST_PREREQUISITES: 'sometimes' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('WTS_TEST_PREREQUISITES must be auto, check or skip');
  });
});
