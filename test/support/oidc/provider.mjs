#!/usr/bin/env node
/* global URL, setTimeout, setInterval */
/**
 * A real OpenID provider for the tests: oidc-provider (a certified implementation) on 127.0.0.1,
 * never a mock. ESM because oidc-provider is ESM-only; the jest side spawns it
 * (test/support/oidc-provider.harness.ts).
 *
 *   node test/support/oidc/provider.mjs [--keys FILE] [--port N] [--audience URI]
 *   node test/support/oidc/provider.mjs --generate-keys FILE [--alg RS256|ES256]
 *
 * Each flag has an environment twin (OIDC_PROVIDER_KEYS, OIDC_PROVIDER_PORT,
 * OIDC_PROVIDER_AUDIENCE); the flag wins. Also OIDC_PROVIDER_CLIENT_ID (the browser's public client,
 * default wts-config-page), OIDC_PROVIDER_REDIRECT_URIS and OIDC_PROVIDER_POST_LOGOUT_REDIRECT_URIS
 * (comma-separated; the latter defaults to the former).
 *
 * --keys names a private JWKS (JSON); without it a fresh RS256 key is generated for this run. The
 * first key signs. --port 0 (the default) takes a free port; a test restarts the provider on the
 * same port with another key set to rotate keys under the same issuer. When ready it prints one
 * line on stdout: {"issuer":"http://127.0.0.1:PORT","port":PORT}. It exits on SIGTERM / SIGINT,
 * when its standard input ends (the parent went away) and when SUPERVISOR_PID is no longer its
 * parent.
 *
 * What it offers:
 * - access tokens as JWTs (RFC 9068, typ at+jwt) for any resource indicator; the default resource
 *   is --audience, and aud is the resource;
 * - client credentials for the bots below (client_secret_basic), whose tokens carry sub = the
 *   client id and their roles;
 * - the public client for the Config page's sign-in: authorization code with PKCE, refresh
 *   tokens, CORS for its redirect URIs' origins, RP-initiated logout, and the provider's own
 *   development login form (any password) for the users below; no consent screen for it
 *   (a first-party application, consented by the organisation);
 * - the roles claim three ways, as providers put it: `roles`, Keycloak's `realm_access.roles` and
 *   an Auth0-style namespaced `https://wts.example.test/roles`.
 */
import { randomBytes } from 'node:crypto';
import { fstatSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/** Keep in step with BOT_CLIENTS in test/support/oidc-provider.harness.ts. */
const BOTS = [
  { clientId: 'viewer-bot', roles: ['viewer'] },
  { clientId: 'operator-bot', roles: ['operator'] },
  { clientId: 'admin-bot', roles: ['admin'] },
  { clientId: 'noroles-bot', roles: undefined },
  // Its tokens live two seconds: the expiry test waits for a token of the provider's own.
  { clientId: 'short-lived-bot', roles: ['viewer'], ttlSeconds: 2 },
];
/** A bot's secret: test-only, derived from its id so the harness knows it without a channel. */
const botSecret = (clientId) => `${clientId}-secret-for-tests-only`;

/** By account id (the login, and the tokens' sub); the email is the account id and verified unless given. */
const USERS = {
  'ada@example.com': { name: 'Ada Lovelace', roles: ['operator'] },
  'vic@example.com': { name: 'Vic Viewer', roles: ['viewer'] },
  'root@example.com': { name: 'Root Admin', roles: ['admin'] },
  // Typed someone else's address into their profile: the provider never verified it.
  mallory: { name: 'Root Admin', roles: ['viewer'], email: 'root@example.com', emailVerified: false },
};
const emailClaims = (accountId, user) => ({ email: user.email ?? accountId, email_verified: user.emailVerified ?? true });

const NAMESPACED_ROLES_CLAIM = 'https://wts.example.test/roles';
const DEFAULT_AUDIENCE = 'https://wts.example.test/admin';

const { values: args } = parseArgs({
  options: {
    keys: { type: 'string' },
    port: { type: 'string' },
    audience: { type: 'string' },
    'generate-keys': { type: 'string' },
    alg: { type: 'string', default: 'RS256' },
  },
});

if (args['generate-keys']) {
  const jwks = await generateSigningKeys(args.alg);
  writeFileSync(args['generate-keys'], `${JSON.stringify(jwks)}\n`, { mode: 0o600 });
  process.exit(0);
}

const env = process.env;
const keysFile = args.keys ?? env.OIDC_PROVIDER_KEYS;
const jwks = keysFile ? JSON.parse(readFileSync(keysFile, 'utf8')) : await generateSigningKeys('RS256');
const signingAlg = jwks.keys[0]?.alg;
if (!signingAlg) throw new Error('the key set must hold at least one key with its alg');
const audience = args.audience ?? env.OIDC_PROVIDER_AUDIENCE ?? DEFAULT_AUDIENCE;
const publicClientId = env.OIDC_PROVIDER_CLIENT_ID ?? 'wts-config-page';
const redirectUris = list(env.OIDC_PROVIDER_REDIRECT_URIS) ?? ['http://127.0.0.1:3000/ui/'];
const postLogoutRedirectUris = list(env.OIDC_PROVIDER_POST_LOGOUT_REDIRECT_URIS) ?? redirectUris;

const server = createServer();
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(Number(args.port ?? env.OIDC_PROVIDER_PORT ?? 0), '127.0.0.1', resolve);
});
const { port } = server.address();
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  jwks,
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  clients: [
    ...BOTS.map(({ clientId }) => ({
      client_id: clientId,
      client_secret: botSecret(clientId),
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    })),
    {
      client_id: publicClientId,
      token_endpoint_auth_method: 'none',
      application_type: 'web',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: redirectUris,
      post_logout_redirect_uris: postLogoutRedirectUris,
      ...(signingAlg === 'RS256' ? {} : { id_token_signed_response_alg: signingAlg }),
    },
  ],
  clientDefaults: { id_token_signed_response_alg: signingAlg },
  scopes: ['openid', 'offline_access', 'email', 'profile'],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
  pkce: { required: () => true },
  findAccount: async (_ctx, accountId) => {
    const user = USERS[accountId];
    if (!user) return undefined;
    return {
      accountId,
      claims: async () => ({ sub: accountId, ...emailClaims(accountId, user), name: user.name, preferred_username: accountId }),
    };
  },
  extraTokenClaims: async (_ctx, token) => {
    if (token.accountId) {
      const user = USERS[token.accountId];
      return user ? { ...emailClaims(token.accountId, user), ...rolesClaims(user.roles) } : undefined;
    }
    const bot = BOTS.find((candidate) => candidate.clientId === token.clientId);
    return bot?.roles ? rolesClaims(bot.roles) : undefined;
  },
  // The first-party Config page is consented by the organisation: no consent screen, only the login form.
  loadExistingGrant: async (ctx) => {
    const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    if (ctx.oidc.client.clientId !== publicClientId || !ctx.oidc.session.accountId) return undefined;
    const grant = new ctx.oidc.provider.Grant({ clientId: publicClientId, accountId: ctx.oidc.session.accountId });
    grant.addOIDCScope('openid email profile offline_access');
    grant.addResourceScope(audience, 'wts');
    await grant.save();
    return grant;
  },
  // Refresh tokens for the Config page as most providers issue them to a browser client (Keycloak,
  // Okta, Entra, Auth0): without prompt=consent. oidc-provider's default follows OpenID Connect
  // Core to the letter and drops offline_access unless prompt=consent, so it would issue none.
  issueRefreshToken: async (_ctx, client, code) =>
    client.grantTypeAllowed('refresh_token') && (code.scopes.has('offline_access') || client.clientId === publicClientId),
  clientBasedCORS: (_ctx, origin, client) =>
    client.clientAuthMethod === 'none' && client.redirectUris.some((uri) => URL.parse(uri)?.origin === origin),
  ttl: {
    AccessToken: () => 600,
    ClientCredentials: (_ctx, _token, client) => BOTS.find((bot) => bot.clientId === client.clientId)?.ttlSeconds ?? 600,
    Grant: () => 3600,
    IdToken: () => 600,
    Interaction: () => 600,
    RefreshToken: () => 3600,
    Session: () => 3600,
  },
  features: {
    devInteractions: { enabled: true },
    clientCredentials: { enabled: true },
    rpInitiatedLogout: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (_ctx, _client, oneOf) => oneOf ?? audience,
      useGrantedResource: async () => true,
      // Any absolute URI is a resource here, so a test can ask for a token meant for another API.
      getResourceServerInfo: async (_ctx, resourceIndicator) => ({
        audience: resourceIndicator,
        scope: 'wts',
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: signingAlg } },
      }),
    },
  },
});
server.on('request', provider.callback());

process.stdout.write(`${JSON.stringify({ issuer, port })}\n`);

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// A parent that holds our stdin as a pipe: when it goes away, however it ended, the pipe closes.
const stdin = fstatSync(0);
if (stdin.isFIFO() || stdin.isSocket()) {
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
}
const supervisorPid = Number(env.SUPERVISOR_PID);
if (Number.isInteger(supervisorPid) && supervisorPid > 0) {
  setInterval(() => {
    if (process.ppid !== supervisorPid) stop();
  }, 500).unref();
}

function rolesClaims(roles) {
  return { roles, realm_access: { roles }, [NAMESPACED_ROLES_CLAIM]: roles };
}

function list(text) {
  const items = text
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items && items.length > 0 ? items : undefined;
}

/** A private JWKS of one signing key: RS256 (RSA 2048) or ES256 (P-256), with its thumbprint as kid. */
async function generateSigningKeys(alg) {
  if (alg !== 'RS256' && alg !== 'ES256') throw new Error(`--alg must be RS256 or ES256, not ${alg}`);
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { keys: [{ ...jwk, kid: await calculateJwkThumbprint(jwk), alg, use: 'sig' }] };
}
