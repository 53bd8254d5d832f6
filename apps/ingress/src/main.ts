import 'reflect-metadata';
import { ConfigurationError, adminCredentialProblem, loadConfig } from '@wts/config';
import {
  OidcAccessTokenVerifier,
  ProviderSignatureVerifier,
  assertPayloadLimitFits,
  describeOidcVerifier,
  createRateLimiter,
  describeSecretSealer,
  exitGracefullyOnSignals,
  listenOrExit,
  openEventStore,
  openReadModelStore,
  openSecretSealer,
  readinessChecks,
  secureDataDirectory,
  stopWhenSupervisorGone,
} from '@wts/platform';
import { createOperationsApp, startTracing, tracedEventStore } from '@wts/observability';
import { randomBytes } from 'node:crypto';
import { createIngressApp } from './ingress.factory';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const warn = (message: string): void => {
    process.stderr.write(`[ingress] warning: ${message}\n`);
  };
  const noCredential = adminCredentialProblem(config);
  if (noCredential) throw new ConfigurationError([noCredential]);
  let adminToken = config.http.adminToken;
  // Only the embedded default makes up a token (printed: the one way to learn it); a production
  // shape without ADMIN_TOKEN has OIDC (adminCredentialProblem) and no bootstrap token at all.
  const embedded = config.eventStore.connectionString === undefined;
  if (!adminToken && !config.http.bootstrapTokenDisabled && embedded) {
    adminToken = randomBytes(24).toString('base64url');
    process.stdout.write(`ADMIN_TOKEN was not set; generated for this run: ${adminToken}\n`);
  }
  // OIDC_ISSUER: people sign in with the organisation's identity provider (access tokens checked against its JWKS).
  const oidc = config.oidc;
  const accessTokens = oidc
    ? new OidcAccessTokenVerifier({
        issuer: oidc.issuer,
        audience: oidc.audience,
        rolesClaim: oidc.rolesClaim,
        jwksCacheMaxAgeMs: oidc.jwksCacheMaxAgeMs,
        onWarning: warn,
      })
    : undefined;
  const signIn =
    oidc?.clientId === undefined
      ? undefined
      : { issuer: oidc.issuer, client_id: oidc.clientId, audience: oidc.audience, scope: oidc.scope };
  // DATA_DIR owner-only (0700, files 0600) before anything is written there; a looser one is tightened and said.
  secureDataDirectory(config, warn);
  // Signing secrets: SECRETS_ENCRYPTION_KEY, else (embedded default) DATA_DIR/secrets-encryption.key, made at first start.
  const secrets = openSecretSealer(config, { onWarning: warn });
  // OTEL_* variables: off by default; when on, started before anything makes a span.
  const tracing = await startTracing({ requested: config.tracing.enabled, serviceName: 'ingress' });
  const opened = await openEventStore(config);
  const { checkpoints } = opened;
  const store = tracing ? tracedEventStore(opened.store) : opened.store;
  assertPayloadLimitFits(config, store);
  // Rejected attempts are written off the event loop: a flood of refusals never delays an answer.
  const { readModels } = await openReadModelStore(config, { activityOffThread: true });
  const rateLimiter = createRateLimiter(config, warn);
  // Signed senders' signatures, checked with the providers' own libraries (decoy secrets made once here).
  const signatures = new ProviderSignatureVerifier();
  const deps = { config, adminToken, accessTokens, signIn, store, checkpoints, readModels, rateLimiter, secrets, signatures };
  const opsPort = config.http.opsPort;
  // OPS_PORT: health and metrics on a listener of their own, none of them on PORT.
  const ops = opsPort === undefined ? undefined : await createOperationsApp(readinessChecks({ ...deps, service: 'ingress' }));
  const app = await createIngressApp({ ...deps, operationsElsewhere: ops !== undefined });
  exitGracefullyOnSignals(app, {
    afterClose: async () => {
      await ops?.close();
      await tracing?.shutdown();
    },
  });
  const opsUrl =
    ops && opsPort !== undefined
      ? await listenOrExit(ops, { service: 'ingress', port: opsPort, host: config.http.host, portVariable: 'OPS_PORT' }, { report: false })
      : undefined;
  const url = await listenOrExit(
    app,
    { service: 'ingress', port: config.http.port, host: config.http.host, portVariable: 'PORT' },
    { opsUrl },
  );
  if (oidc) process.stdout.write(`admin sign-in: ${describeOidcVerifier(oidc)}\n`);
  process.stdout.write(`${describeSecretSealer(secrets)}\n`);
  process.stdout.write(
    `ingress listening on ${url.origin} (public base URL ${config.http.publicBaseUrl})${opsUrl ? `; health and metrics on ${opsUrl.origin}` : ''}\n`,
  );
  stopWhenSupervisorGone(config.supervisorPid);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigurationError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`ingress failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
