import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JSONWebKeySet } from 'jose';

/**
 * A real OpenID provider for integration tests: oidc-provider (ESM-only, so jest cannot load it
 * in-process) run as a child process by test/support/oidc/provider.mjs. What it offers — bots for
 * client credentials, users for the browser sign-in, the roles claims — is described there.
 */
const PROVIDER_SCRIPT = join(__dirname, 'oidc', 'provider.mjs');

/** The provider's default resource: access tokens carry it as `aud`. */
export const OIDC_TEST_AUDIENCE = 'https://wts.example.test/admin';
/** An Auth0-style namespaced claim the provider also puts the roles in (beside `roles` and `realm_access.roles`). */
export const OIDC_TEST_NAMESPACED_ROLES_CLAIM = 'https://wts.example.test/roles';

/** The client-credentials clients of provider.mjs (BOTS there) and the roles their tokens carry. */
export const BOT_CLIENTS = {
  'viewer-bot': ['viewer'],
  'operator-bot': ['operator'],
  'admin-bot': ['admin'],
  'noroles-bot': undefined,
  /** Its tokens expire two seconds after they are issued. */
  'short-lived-bot': ['viewer'],
} as const;
export type BotClientId = keyof typeof BOT_CLIENTS;

/** Users of the provider's login form (any password), their tokens' roles; `email` the login, verified — mallory's root@example.com, not. */
export const OIDC_TEST_USERS = {
  'ada@example.com': ['operator'],
  'vic@example.com': ['viewer'],
  'root@example.com': ['admin'],
  mallory: ['viewer'],
} as const;

const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

export interface OidcProviderOptions {
  /** Default resource indicator, so the `aud` of access tokens (default OIDC_TEST_AUDIENCE). */
  readonly audience?: string;
  /** A private JWKS; the first key signs. Default: a fresh RS256 key. */
  readonly signingKeys?: JSONWebKeySet;
  /** Default: a free port. */
  readonly port?: number;
  /** The browser's public client (default wts-config-page). */
  readonly publicClientId?: string;
  readonly redirectUris?: readonly string[];
  readonly postLogoutRedirectUris?: readonly string[];
}

export interface RunningOidcProvider {
  /** `http://127.0.0.1:PORT`, no trailing slash: the `iss` of its tokens. */
  readonly issuer: string;
  readonly port: number;
  readonly audience: string;
  /** The private JWKS it signs with now. */
  readonly signingKeys: JSONWebKeySet;
  /** What the provider printed (stdout and stderr), for a failure's message. */
  output(): string;
  /** Stops it (an outage, or the end: restart() brings it back). */
  stop(): Promise<void>;
  /** Stops it if it runs and starts it again on the same port (so the same issuer), signing with `newKeys` only when given. */
  restart(newKeys?: JSONWebKeySet): Promise<void>;
  /** An access token from the real token endpoint (client_secret_basic); `audience` asks for another resource. */
  clientCredentialsToken(clientId: BotClientId, options?: { readonly audience?: string }): Promise<string>;
  /**
   * A person's access token: the public client's authorization code flow with PKCE, signing in
   * through the provider's own login form (over HTTP, as a browser would post it).
   */
  signInToken(email: OidcTestUser): Promise<string>;
  /** The same sign-in's token answer: its access token and its ID token (for the public client: `aud` is its client id). */
  signInTokens(email: OidcTestUser): Promise<SignedInTokens>;
}

export type SignedInTokens = { readonly accessToken: string; readonly idToken: string };

export type OidcTestUser = keyof typeof OIDC_TEST_USERS;

/** A private JWKS of one signing key (RS256: RSA 2048; ES256: P-256), its RFC 7638 thumbprint as kid. */
export async function generateSigningKeys(alg: 'RS256' | 'ES256' = 'RS256'): Promise<JSONWebKeySet> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { keys: [{ ...jwk, kid: await calculateJwkThumbprint(jwk), alg, use: 'sig' }] };
}

/** Test-only secrets, derived from the id exactly as provider.mjs does (botSecret). */
function botSecret(clientId: BotClientId): string {
  return `${clientId}-secret-for-tests-only`;
}

export async function startOidcProvider(options: OidcProviderOptions = {}): Promise<RunningOidcProvider> {
  const directory = mkdtempSync(join(tmpdir(), 'wts-oidc-'));
  const audience = options.audience ?? OIDC_TEST_AUDIENCE;
  let signingKeys = options.signingKeys ?? (await generateSigningKeys());
  const lines: string[] = [];
  let child: ChildProcess | undefined;
  let generation = 0;

  const launch = async (port: number): Promise<{ issuer: string; port: number }> => {
    generation += 1;
    const keysFile = join(directory, `keys-${generation}.json`);
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    writeFileSync(keysFile, JSON.stringify(signingKeys), { mode: 0o600 });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // Whatever way this test process ends, the provider follows (its stdin closes too).
      SUPERVISOR_PID: String(process.pid),
      ...(options.publicClientId ? { OIDC_PROVIDER_CLIENT_ID: options.publicClientId } : {}),
      ...(options.redirectUris ? { OIDC_PROVIDER_REDIRECT_URIS: options.redirectUris.join(',') } : {}),
      ...(options.postLogoutRedirectUris ? { OIDC_PROVIDER_POST_LOGOUT_REDIRECT_URIS: options.postLogoutRedirectUris.join(',') } : {}),
    };
    const started = spawn(process.execPath, [PROVIDER_SCRIPT, '--keys', keysFile, '--port', String(port), '--audience', audience], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child = started;
    return readReadyLine(started, lines);
  };

  const first = await launch(options.port ?? 0);
  const { issuer, port } = first;
  const signInTokens = (email: OidcTestUser): Promise<SignedInTokens> =>
    signIn(issuer, {
      clientId: options.publicClientId ?? 'wts-config-page',
      redirectUri: options.redirectUris?.[0] ?? 'http://127.0.0.1:3000/ui/',
      email,
    });
  let tokenEndpoint: string | undefined;

  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running) await stopChild(running);
  };

  return {
    issuer,
    port,
    audience,
    get signingKeys() {
      return signingKeys;
    },
    output: () => lines.join(''),
    stop: async () => {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
    restart: async (newKeys) => {
      await stop();
      if (newKeys) signingKeys = newKeys;
      const again = await launch(port);
      if (again.issuer !== issuer) throw new Error(`the provider came back as ${again.issuer}, not ${issuer}`);
    },
    clientCredentialsToken: async (clientId, tokenOptions = {}) => {
      tokenEndpoint ??= await discoverTokenEndpoint(issuer);
      const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(botSecret(clientId))}`).toString('base64');
      const body = new URLSearchParams({ grant_type: 'client_credentials' });
      if (tokenOptions.audience !== undefined) body.set('resource', tokenOptions.audience);
      const response = await fetch(tokenEndpoint, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body,
        signal: AbortSignal.timeout(5_000),
      });
      const answer = (await response.json()) as { access_token?: unknown; error?: unknown; error_description?: unknown };
      if (!response.ok || typeof answer.access_token !== 'string') {
        throw new Error(`token endpoint answered ${response.status}: ${String(answer.error)} ${String(answer.error_description)}`);
      }
      return answer.access_token;
    },
    signInToken: async (email) => (await signInTokens(email)).accessToken,
    signInTokens,
  };
}

/** The authorization code flow of a browser, cookies and all, with the provider's development login form. */
async function signIn(issuer: string, flow: { clientId: string; redirectUri: string; email: string }): Promise<SignedInTokens> {
  const cookies = new Map<string, string>();
  const step = async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(new URL(url, issuer), {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string> | undefined), cookie },
      signal: AbortSignal.timeout(5_000),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL('/auth', issuer);
  authorize.search = new URLSearchParams({
    client_id: flow.clientId,
    response_type: 'code',
    redirect_uri: flow.redirectUri,
    scope: 'openid email profile',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
  }).toString();
  let response = await step(authorize);
  const form = await (await step(location(response))).text();
  const action = /action="([^"]+)"/.exec(form)?.[1];
  if (!action) throw new Error(`the provider showed no login form:\n${form.slice(0, 500)}`);
  response = await step(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ prompt: 'login', login: flow.email, password: 'any password' }).toString(),
  });
  while (!location(response).startsWith(flow.redirectUri)) response = await step(location(response));
  const code = new URL(location(response)).searchParams.get('code');
  if (!code) throw new Error(`the provider redirected without a code: ${location(response)}`);
  const token = await fetch(new URL('/token', issuer), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: flow.clientId,
      redirect_uri: flow.redirectUri,
    }),
    signal: AbortSignal.timeout(5_000),
  });
  const answer = (await token.json()) as { access_token?: unknown; id_token?: unknown; error?: unknown };
  if (typeof answer.access_token !== 'string' || typeof answer.id_token !== 'string') {
    throw new Error(`the token endpoint answered ${token.status}: ${String(answer.error)}`);
  }
  return { accessToken: answer.access_token, idToken: answer.id_token };
}

function location(response: Response): string {
  const target = response.headers.get('location');
  if (response.status < 300 || response.status >= 400 || !target) throw new Error(`expected a redirect, got ${response.status}`);
  return target;
}

async function discoverTokenEndpoint(issuer: string): Promise<string> {
  const response = await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5_000) });
  const document = (await response.json()) as { token_endpoint?: unknown };
  if (typeof document.token_endpoint !== 'string') throw new Error(`${issuer} names no token_endpoint`);
  return document.token_endpoint;
}

/** Resolves with the provider's ready line; rejects with its output if it exits or stays silent. */
function readReadyLine(child: ChildProcess, lines: string[]): Promise<{ issuer: string; port: number }> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`the OpenID provider ${why}:\n${lines.join('').slice(-3000)}`));
    };
    const timer = setTimeout(() => fail(`printed no ready line within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.stderr?.on('data', (chunk: Buffer) => lines.push(chunk.toString('utf8')));
    child.stdout?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      lines.push(text);
      if (stdout.includes('\n')) return;
      stdout += text;
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      child.removeListener('exit', onExit);
      try {
        resolve(JSON.parse(stdout.slice(0, newline)) as { issuer: string; port: number });
      } catch {
        reject(new Error(`the OpenID provider's first line is not its ready line: ${stdout.slice(0, newline)}`));
      }
    });
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => fail(`exited (${signal ?? code}) before it was ready`);
    child.once('exit', onExit);
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
    child.stdin?.end();
  });
}
