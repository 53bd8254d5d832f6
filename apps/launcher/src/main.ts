import { ConfigurationError, loadConfig } from '@wts/config';
import { prepareEventStore, resolveLogFormat } from '@wts/platform';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ChildProcessSupervisor } from './child-process.supervisor';

/**
 * `npm start`: both services as separate processes on the embedded default (SQLite store under
 * DATA_DIR, in-memory rate limits), with an admin token generated unless ADMIN_TOKEN is set.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const generated = config.http.adminToken === undefined;
  const adminToken = config.http.adminToken ?? randomBytes(24).toString('base64url');
  // The store's schema is created here, once, before the two services open it.
  await prepareEventStore(config);
  const env = {
    ...process.env,
    ADMIN_TOKEN: adminToken,
    DATA_DIR: config.storage.dataDir,
    // The services' stdout is a pipe to this process: they log for the terminal this one writes to.
    LOG_FORMAT: resolveLogFormat(config.log.format),
    SUPERVISOR_PID: String(process.pid),
  };
  const dist = join(__dirname, '..', '..');
  const supervisor = new ChildProcessSupervisor();
  supervisor.start({ name: 'ingress', script: join(dist, 'ingress', 'src', 'main.js'), env });
  supervisor.start({ name: 'run-dispatcher', script: join(dist, 'run-dispatcher', 'src', 'main.js'), env });

  const shutdown = (): void => {
    void supervisor.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  await waitUntilReady(`http://127.0.0.1:${config.http.port}/health/ready`);
  // A generated token is printed (the only way to learn it); one the operator chose is not.
  process.stdout.write(banner(config.http.publicBaseUrl, generated ? adminToken : '<your ADMIN_TOKEN>', config.storage.dataDir, config.http.dispatcherPort));
}

async function waitUntilReady(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  process.stderr.write(`[launcher] the ingress did not become ready at ${url} within 60 s\n`);
}

function banner(baseUrl: string, adminToken: string, dataDir: string, dispatcherPort: number): string {
  return [
    '',
    '  Webhook trigger service is running (embedded default: no external server).',
    `  Base URL      ${baseUrl}`,
    `  Config page   ${baseUrl}/ui/   (sign in with the admin token)`,
    `  Admin API     ${baseUrl}/admin/…   Authorization: Bearer ${adminToken}`,
    `  Webhooks      POST ${baseUrl}/workflow-webhooks/<webhook_id>`,
    `  Health        ${baseUrl}/health/ready   (run-dispatcher: http://localhost:${dispatcherPort}/health/ready)`,
    `  Metrics       ${baseUrl}/metrics        (run-dispatcher: http://localhost:${dispatcherPort}/metrics)`,
    `  Data          ${dataDir}`,
    '  Stop with Ctrl+C.',
    '',
  ].join('\n') + '\n';
}

main().catch((error: unknown) => {
  if (error instanceof ConfigurationError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`launcher failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
