/**
 * The Config page is served by the ingress under /ui/: an allow-list of static files, each with
 * the Content-Security-Policy and the security headers; no inline script or style anywhere, and
 * no HTML sink in the scripts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { VERIFICATION_SCHEMES } from '@wts/contracts';
import { composeUiPage, findUiDirectory } from '../../src/ui/ui-assets';
import { UiTestServer } from '../../../../test/support/ui-test-server';

const REQUIRED_CSP_DIRECTIVES = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
];

function expectSecurityHeaders(headers: Headers): void {
  const csp = headers.get('content-security-policy') ?? '';
  const directives = csp.split(';').map((directive) => directive.trim());
  for (const directive of REQUIRED_CSP_DIRECTIVES) expect(directives).toContain(directive);
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*|data:|http:|https:/);
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('cache-control')).toBe('no-store');
}

describe('Config page: serving', () => {
  let server: UiTestServer;

  beforeAll(async () => {
    server = await UiTestServer.start();
  });

  afterAll(async () => {
    await server.close();
  });

  it.each([
    ['the routine list', '/ui/', 'routines-page.js'],
    ['the Config page of any routine id (the script reads the id)', '/ui/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/config', 'config-page.js'],
  ])('serves %s at %s as HTML with the CSP and security headers, no token needed', async (_page, path, script) => {
    const page = await server.http('GET', path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expectSecurityHeaders(page.headers);
    expect(page.text).toContain(`<script type="module" src="/ui/assets/${script}"></script>`);
    // The pieces both pages share (partials/) are in the page as served.
    expect(page.text).toContain('<form id="signin-form"');
    expect(page.text).not.toContain('<!-- include:');
  });

  it('redirects /ui to /ui/', async () => {
    const answer = await server.http('GET', '/ui');
    expect(answer.status).toBe(308);
    expect(answer.headers.get('location')).toBe('/ui/');
    expectSecurityHeaders(answer.headers);
  });

  it('serves scripts, styles and the icon with their types and the same headers', async () => {
    const cases: [string, string][] = [
      ['/ui/assets/config-page.js', 'text/javascript; charset=utf-8'],
      ['/ui/assets/session.js', 'text/javascript; charset=utf-8'],
      ['/ui/assets/app.css', 'text/css; charset=utf-8'],
      ['/ui/assets/favicon.svg', 'image/svg+xml'],
      ['/ui/assets/verification-schemes.js', 'text/javascript; charset=utf-8'],
    ];
    for (const [path, type] of cases) {
      const answer = await server.http('GET', path);
      expect({ path, status: answer.status, type: answer.headers.get('content-type') }).toEqual({ path, status: 200, type });
      expectSecurityHeaders(answer.headers);
    }
  });

  it('serves the verification schemes made at start-up from @wts/contracts (one list, no copy)', async () => {
    const answer = await server.http('GET', '/ui/assets/verification-schemes.js');
    expect(answer.text).toContain(`export const VERIFICATION_SCHEMES = ${JSON.stringify(VERIFICATION_SCHEMES)};`);
    const senderSchemes = readFileSync(join(findUiDirectory(__dirname), 'assets', 'sender-schemes.js'), 'utf8');
    expect(senderSchemes).toContain("export { VERIFICATION_SCHEMES as SCHEMES } from './verification-schemes.js';");
  });

  it('serves oauth4webapi from node_modules as a vendor module (no CDN), without its source-map comment', async () => {
    const answer = await server.http('GET', '/ui/assets/vendor/oauth4webapi.js');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expectSecurityHeaders(answer.headers);
    expect(answer.text).toContain('export async function discoveryRequest(');
    expect(answer.text).not.toContain('sourceMappingURL');
  });

  it('tells the page how to sign in: no identity provider here, the bootstrap token accepted; the CSP connects to us only', async () => {
    const answer = await server.http('GET', '/ui/sign-in-settings');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ oidc: null, bootstrap_token: true });
    const page = await server.http('GET', '/ui/');
    expect((page.headers.get('content-security-policy') ?? '').split('; ')).toContain("connect-src 'self'");
  });

  it.each([
    '/ui/assets/vendor/missing.js',
    '/ui/assets/vendor/index.js.map',
    '/ui/assets/vendor/..%2f..%2fpackage.json',
    '/ui/assets/vendor/oauth4webapi.js%2f..%2f..%2fsession.js',
    '/ui/assets/missing.js',
    '/ui/assets/..%2f..%2fpackage.json',
    '/ui/assets/..%2fconfig.html',
    '/ui/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fpackage.json',
    '/ui/assets/APP.CSS',
    '/ui/assets/app.css.map',
    '/ui/index.html',
    '/ui/routines/not-a-routine/config',
    '/ui/routines/rtn_x%2f..%2f/config',
    '/ui/something',
  ])('answers 404 (problem+json) for %s: only the allow-list is served', async (path) => {
    const answer = await server.http('GET', path);
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.text).not.toContain('"name"');
  });

  it('answers HEAD like GET without a body', async () => {
    const answer = await server.http('HEAD', '/ui/');
    expect(answer.status).toBe(200);
    expectSecurityHeaders(answer.headers);
  });

  it('does not accept other methods on the pages', async () => {
    const answer = await server.http('POST', '/ui/', { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(answer.status).toBe(404);
  });
});

describe('Config page: the static files themselves', () => {
  const root = findUiDirectory(__dirname);
  const pages = readdirSync(root).filter((name) => name.endsWith('.html'));
  const scripts = readdirSync(join(root, 'assets')).filter((name) => name.endsWith('.js'));

  it('finds the files from the test and from where the build puts the controller', () => {
    expect(findUiDirectory(join(__dirname, '..', '..', '..', '..', 'dist', 'apps', 'ingress', 'src', 'ui'))).toBe(root);
    expect(pages.sort()).toEqual(['config.html', 'index.html']);
  });

  it.each(pages)('%s is whole once its partials are in: no include line left, one document', (name) => {
    const html = composeUiPage(root, name);
    expect(html).not.toMatch(/<!-- include:/);
    expect(html.match(/<!doctype html>/g)).toHaveLength(1);
    expect(html.match(/<\/html>/g)).toHaveLength(1);
  });

  it.each(pages)('%s has no inline script, inline style or event-handler attribute', (name) => {
    const html = composeUiPage(root, name);
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\bsrc="\/ui\/assets\/[a-z-]+\.js"/);
    expect(html).not.toMatch(/<script\b[^>]*>[^<\s]/);
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/javascript:/i);
  });

  it.each(pages)('%s labels every form control', (name) => {
    const html = composeUiPage(root, name);
    const controls = [...html.matchAll(/<(input|select|textarea)\b[^>]*\bid="([^"]+)"/g)].map((match) => match[2] as string);
    expect(controls.length).toBeGreaterThan(0);
    for (const id of controls) expect({ id, labelled: html.includes(`<label for="${id}"`) }).toEqual({ id, labelled: true });
  });

  it.each(scripts)('%s never turns strings into HTML or code', (name) => {
    const source = readFileSync(join(root, 'assets', name), 'utf8');
    expect(source).not.toMatch(
      /\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|\beval\(|new Function\(|localStorage|document\.cookie/,
    );
  });
});
