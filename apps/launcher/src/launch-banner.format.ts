import type { AppConfig } from '@wts/config';
import type { ServiceAddress } from './child-process.supervisor';

export interface BannerFacts {
  readonly config: AppConfig;
  /** The generated token, or a placeholder when the operator chose one; undefined when it is off (ADMIN_TOKEN=off). */
  readonly adminToken: string | undefined;
  /** Where each service listens, as the service itself reported it. */
  readonly ingress: ServiceAddress;
  readonly dispatcher: ServiceAddress;
}

/** What npm start prints once both services it started are ready. */
export function banner({ config, adminToken, ingress, dispatcher }: BannerFacts): string {
  const base = config.http.publicBaseUrl;
  const local = reachable(ingress.opsUrl);
  const ops = reachable(dispatcher.opsUrl);
  const exposure = ['127.0.0.1', '::1', 'localhost'].includes(config.http.host)
    ? `${config.http.host} only: this machine (HOST=0.0.0.0 to accept others)`
    : `${config.http.host}: reachable from other machines`;
  return (
    [
      '',
      '  Webhook trigger service is running (embedded default: no external server).',
      `  Base URL      ${base}`,
      `  Listening on  ${exposure}`,
      `  Config page   ${base}/ui/   (${signIn(config, adminToken)})`,
      `  Admin API     ${base}/admin/…   Authorization: Bearer ${adminToken ?? '<an OIDC access token or an API key wtk_…>'}`,
      `  Webhooks      POST ${base}/workflow-webhooks/<webhook_id>`,
      `  Health        ${local}/health/ready   (run-dispatcher: ${ops}/health/ready)`,
      `  Metrics       ${local}/metrics        (run-dispatcher: ${ops}/metrics)`,
      `  Data          ${config.storage.dataDir}`,
      '  Stop with Ctrl+C.',
      '',
    ].join('\n') + '\n'
  );
}

/** How people sign in to the Config page. */
function signIn(config: AppConfig, adminToken: string | undefined): string {
  const oidc = config.oidc?.clientId === undefined ? undefined : `sign in with ${config.oidc.issuer}`;
  const token = adminToken === undefined ? undefined : 'the admin token';
  return [oidc, token].filter((way) => way !== undefined).join(' or ') || 'sign in with an API key';
}

/** The service's own address as a URL a browser on this machine can open (localhost for loopback and wildcard binds). */
function reachable(url: URL): string {
  const local = ['127.0.0.1', '[::1]', '0.0.0.0', '[::]'].includes(url.hostname);
  return local ? `http://localhost:${url.port}` : url.origin;
}
