import 'reflect-metadata';
import { ConfigurationError, loadConfig } from '@wts/config';
import { assertPayloadLimitFits, createRateLimiter, exitGracefullyOnSignals, listenOrExit, openEventStore, openReadModelStore, stopWhenSupervisorGone } from '@wts/platform';
import { startTracing, traceAppends } from '@wts/observability';
import { randomBytes } from 'node:crypto';
import { createIngressApp } from './ingress.factory';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  let adminToken = config.http.adminToken;
  if (!adminToken) {
    adminToken = randomBytes(24).toString('base64url');
    process.stdout.write(`ADMIN_TOKEN was not set; generated for this run: ${adminToken}\n`);
  }
  // OTEL_* variables: off by default; when on, started before anything makes a span.
  const tracing = await startTracing({ requested: config.tracing.enabled, serviceName: 'ingress' });
  const opened = await openEventStore(config);
  const { checkpoints } = opened;
  const store = tracing ? traceAppends(opened.store) : opened.store;
  assertPayloadLimitFits(config, store);
  const { readModels } = await openReadModelStore(config);
  const rateLimiter = createRateLimiter(config, (message) => process.stderr.write(`[ingress] warning: ${message}\n`));
  const app = await createIngressApp({ config, adminToken, store, checkpoints, readModels, rateLimiter });
  exitGracefullyOnSignals(app, { afterClose: async () => tracing?.shutdown() });
  const url = await listenOrExit(app, { service: 'ingress', port: config.http.port, host: config.http.host, portVariable: 'PORT' });
  process.stdout.write(`ingress listening on ${url.origin} (public base URL ${config.http.publicBaseUrl})\n`);
  stopWhenSupervisorGone(config.supervisorPid);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigurationError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`ingress failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
