import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminClient } from '../support/admin-client';
import { INGRESS_MAIN, ServiceProcess, assertBuilt, freePort } from '../support/service-processes';
import { eventually } from '@wts/testing';

/** Every request is logged (one line each); at trace level no secret, admin token or body may appear in the output. */
describe('structured logs never carry secrets', () => {
  let dataDir: string;
  let ingress: ServiceProcess;

  afterAll(async () => {
    await ingress?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs each request without its headers, and never a secret, a token or a body', async () => {
    assertBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'wts-e2e-logs-'));
    const port = await freePort();
    const token = `admin-${randomBytes(18).toString('base64url')}`;
    ingress = new ServiceProcess('ingress', INGRESS_MAIN, {
      DATA_DIR: dataDir,
      PORT: String(port),
      ADMIN_TOKEN: token,
      LOG_LEVEL: 'trace',
    });
    ingress.start();
    const admin = new AdminClient(`http://127.0.0.1:${port}`, token);
    await eventually(async () => (await fetch(`${admin.baseUrl}/readyz`)).ok, 30_000, 'the ingress');

    const { url, secret, routineId } = await admin.setUpWebhook();
    const rotated = await admin.call<{ secret: string }>('POST', `/admin/routines/${routineId}/webhook/rotate`);
    const bodyMarker = `payload-${randomBytes(8).toString('hex')}`;
    for (const presented of [rotated.body.secret, secret, 'whsec_wrong']) {
      await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${presented}`, 'content-type': 'application/json' },
        body: JSON.stringify({ data: bodyMarker }),
      });
    }
    await fetch(`${admin.baseUrl}/admin/accounts`, { headers: { authorization: `Bearer ${token}-wrong` } });
    // Evidence the logs are flushed, not a pause: the line of every request above is in the output
    // (the last one, the refused admin call, included), so nothing they could leak is still buffered.
    const requestLines = (): string[] =>
      ingress.output.join('').match(/"msg":"(POST \/workflow-webhooks\/\S+|GET \/admin\/accounts) \d{3} /g) ?? [];
    await eventually(
      async () => requestLines().length >= 4 && requestLines().some((line) => line.includes('GET /admin/accounts 401')),
      20_000,
      'the four request lines logged',
    );

    const output = ingress.output.join('');
    expect(output).toMatch(/"msg":"POST \/workflow-webhooks\/whk_[A-Za-z0-9_-]+ 202 \d+ ms"/);
    // A refused request's line names its problem code (one for every 404 cause), as a field too.
    expect(output).toMatch(/"code":"webhook_not_found","msg":"POST \/workflow-webhooks\/whk_[A-Za-z0-9_-]+ 404 webhook_not_found \d+ ms"/);
    expect(output).toMatch(/"code":"unauthorized","msg":"GET \/admin\/accounts 401 unauthorized \d+ ms"/);
    // Request lines hold method, path, status, time and peer: never a header or a body.
    expect(output).not.toMatch(/"headers"|"authorization"|"body"/i);
    for (const secretValue of [token, secret, rotated.body.secret, 'whsec_wrong', bodyMarker]) {
      expect(output).not.toContain(secretValue);
    }
  }, 60_000);
});
