import type { SignInSettings } from './sign-in.setting';

/**
 * The Config page's Content-Security-Policy: only our own files, no inline script or style, no
 * plugins, no <base>, no framing, forms post only to us. Trusted Types make string-to-HTML sinks
 * (innerHTML and friends) throw, so data can only ever reach the page as text.
 *
 * With OIDC sign-in the page also talks to the identity provider (discovery, token endpoint,
 * refresh): `connect-src` then allows the issuer's origin, computed here from the issuer alone.
 * A provider whose token endpoint lies on another origin than its issuer is not reachable from
 * the page (docs/config-page.md says so). The sign-in itself is a top-level redirect, not a form
 * post: `form-action` stays 'self'.
 */
export function uiContentSecurityPolicy(oidc: SignInSettings['oidc']): string {
  const connect = ["'self'", ...(oidc === null ? [] : [new URL(oidc.issuer).origin])];
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `connect-src ${connect.join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join('; ');
}

/** Sent with every file under /ui/. */
export function uiSecurityHeaders(oidc: SignInSettings['oidc']): Readonly<Record<string, string>> {
  return {
    'content-security-policy': uiContentSecurityPolicy(oidc),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  };
}
