import { EXIT_CANNOT_LISTEN } from '@wts/platform';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChildProcessSupervisor } from '../../apps/launcher/src/child-process.supervisor';
import { INGRESS_MAIN, assertBuilt, freePort } from '../support/service-processes';

/** The launcher's supervisor: what it restarts, what it gives up on, and where it learns a service listens. */
describe('ChildProcessSupervisor', () => {
  let dir: string;
  let supervisor: ChildProcessSupervisor | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wts-e2e-supervisor-'));
  });

  afterEach(async () => {
    await supervisor?.stop();
    supervisor = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  function supervise(maxRapidExits: number): Promise<string> {
    return new Promise((resolve) => {
      supervisor = new ChildProcessSupervisor({ maxRapidExits, stableAfterMs: 30_000, backoffBaseMs: 20, onGiveUp: resolve });
    });
  }

  it('a service that keeps dying right after it starts is given up after a bounded number of starts, with the reason', async () => {
    const starts = join(dir, 'starts');
    writeFileSync(starts, '');
    const script = join(dir, 'dies.js');
    writeFileSync(script, `require('fs').appendFileSync(${JSON.stringify(starts)}, 'x'); process.exit(3);`);
    const gaveUp = supervise(4);
    supervisor?.start({ name: 'crashy', script, env: process.env });
    const reason = await gaveUp;
    expect(reason).toBe(
      'crashy exited 4 times in a row within 30 s of starting (last: exit code 3); giving up — its log lines above say why',
    );
    // Given up: no fifth start, ever.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readFileSync(starts, 'utf8')).toBe('xxxx');
  }, 20_000);

  it('where a service listens is what that process reports over its channel', async () => {
    const script = join(dir, 'reports.js');
    writeFileSync(
      script,
      `process.send({ type: 'wts:listening', service: 'fake', pid: process.pid, port: 1234, url: 'http://127.0.0.1:1234' }); setTimeout(() => {}, 60000);`,
    );
    const impostor = join(dir, 'impostor.js');
    // A report naming another pid is not this child's word, and is ignored.
    writeFileSync(
      impostor,
      `process.send({ type: 'wts:listening', service: 'fake', pid: 1, port: 9, url: 'http://127.0.0.1:9' }); setTimeout(() => {}, 60000);`,
    );
    void supervise(5);
    supervisor?.start({ name: 'fake', script, env: process.env });
    supervisor?.start({ name: 'other', script: impostor, env: process.env });
    expect((await supervisor?.whenListening('fake'))?.url.port).toBe('1234');
    const other = await Promise.race([
      supervisor?.whenListening('other'),
      new Promise((resolve) => setTimeout(() => resolve('no report'), 1000)),
    ]);
    expect(other).toBe('no report');
  }, 20_000);

  describe('a service whose port was taken after the launcher looked (the ingress from dist/)', () => {
    let holder: Server | undefined;

    afterEach(async () => {
      await new Promise((resolve) => (holder ? holder.close(resolve) : resolve(undefined)));
    });

    it(`exits ${EXIT_CANNOT_LISTEN} with the port and its variable, and is given up at once, not restarted`, async () => {
      assertBuilt();
      const port = await freePort();
      holder = createServer();
      await new Promise<void>((resolve) => holder?.listen(port, '127.0.0.1', resolve));
      const gaveUp = supervise(5);
      const startedAt = Date.now();
      const env = {
        ...process.env,
        PORT: String(port),
        DISPATCHER_PORT: '0',
        DATA_DIR: join(dir, 'data'),
        ADMIN_TOKEN: 'a-test-admin-token-0123456789',
        SUPERVISOR_PID: String(process.pid),
      };
      supervisor?.start({ name: 'ingress', script: INGRESS_MAIN, env });
      const reason = await gaveUp;
      expect(reason).toBe(`port ${port} (PORT) is already in use on 127.0.0.1: another process listens there; set PORT to a free port`);
      expect(Date.now() - startedAt).toBeLessThan(20_000);
      expect(supervisor?.isRunning('ingress')).toBe(false);
    }, 30_000);
  });
});
