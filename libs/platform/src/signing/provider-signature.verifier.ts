import type { HandshakeAnswer, SignatureVerdict, SignatureVerifier, SignedDelivery } from '@wts/application';
import type { SignedScheme } from '@wts/contracts';
import { STANDARD_WEBHOOKS_SECRET_BYTES, sealedCredential, standardWebhooksSecret, type Handshake } from '@wts/domain';
import { isUtf8 } from 'node:buffer';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { checkDiscord, discordTakes } from './discord-signature.check';
import { checkGithub, githubTakes } from './github-signature.check';
import { checkGitlab, gitlabTakes } from './gitlab-signature.check';
import { checkLinear, linearTakes } from './linear-signature.check';
import { checkMeta, metaTakes } from './meta-signature.check';
import { checkMicrosoftGraph } from './microsoft-graph.check';
import { checkPagerduty, pagerdutyTakes } from './pagerduty-signature.check';
import { answerHandshake } from './provider-handshake.answers';
import { checkSentry, sentryTakes } from './sentry-signature.check';
import { checkShopify, shopifyTakes } from './shopify-signature.check';
import { nonEmptySecret, refused } from './signature-check.shared';
import { checkSlack } from './slack-signature.check';
import { checkStandardWebhooks, standardWebhooksTakes } from './standard-webhooks-signature.check';
import { checkStripe, stripeTakes } from './stripe-signature.check';
import { checkSvix, svixTakes } from './svix-signature.check';
import { checkTwitch } from './twitch-signature.check';
import { checkX } from './x-signature.check';
import { checkZendesk, zendeskTakes } from './zendesk-signature.check';
import { checkZoom } from './zoom-signature.check';

interface SchemeCheck {
  /** Whether the provider's library accepts the secret at all (it throws before computing otherwise). */
  readonly takes: (secret: string) => boolean;
  readonly check: (delivery: SignedDelivery) => SignatureVerdict | Promise<SignatureVerdict>;
}

const CHECKS: Readonly<Record<SignedScheme, SchemeCheck>> = {
  standard_webhooks: { takes: standardWebhooksTakes, check: checkStandardWebhooks },
  github: { takes: githubTakes, check: checkGithub },
  stripe: { takes: stripeTakes, check: checkStripe },
  shopify: { takes: shopifyTakes, check: checkShopify },
  gitlab: { takes: gitlabTakes, check: checkGitlab },
  linear: { takes: linearTakes, check: checkLinear },
  sentry: { takes: sentryTakes, check: checkSentry },
  pagerduty: { takes: pagerdutyTakes, check: checkPagerduty },
  zendesk: { takes: zendeskTakes, check: checkZendesk },
  svix: { takes: svixTakes, check: checkSvix },
  slack: { takes: nonEmptySecret, check: checkSlack },
  zoom: { takes: nonEmptySecret, check: checkZoom },
  discord: { takes: discordTakes, check: checkDiscord },
  twitch: { takes: nonEmptySecret, check: checkTwitch },
  x: { takes: nonEmptySecret, check: checkX },
  meta: { takes: metaTakes, check: checkMeta },
  microsoft_graph: { takes: nonEmptySecret, check: checkMicrosoftGraph },
};

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Signed deliveries checked as each provider's own library checks them: GitHub with
 * `@octokit/webhooks-methods`; Standard Webhooks and Svix (`standardwebhooks` takes the secret),
 * Stripe, Shopify, Linear and PagerDuty with the same HMAC by node:crypto over the raw body bytes,
 * which tests prove equal to their libraries' (the libraries' own paths cost more, and Stripe's
 * throws on a mismatch only, which made a matching signature measurably faster to refuse:
 * docs/timing.md); Sentry and Zendesk, which ship no library, as their documentation computes it;
 * GitLab's token compared as a digest. The providers with a handshake — Slack, Zoom, Discord,
 * Twitch, X, Meta, Microsoft Graph — by their documented algorithm with node:crypto, their
 * libraries the tests' reference where one exists.
 *
 * What it does depends on the request, the scheme and the clock only, never on whether the secret
 * is a webhook's or the decoy: the same signature is computed either way, a stored secret the
 * library refuses is replaced by the decoy (and the delivery refused), and a body that is not UTF-8
 * or is empty is refused after the computation, not before. No signature is computed for a request
 * whose headers are missing or malformed or whose signed timestamp is outside the tolerance: facts
 * of the request alone. It never throws: every failure is a verdict, and no library message
 * (Stripe's carries the header and the payload) leaves it.
 */
export class ProviderSignatureVerifier implements SignatureVerifier {
  private readonly decoys: Readonly<Record<SignedScheme, string>>;

  /** The decoys are made once per process (per instance): in each scheme's own form, held by no sender. */
  constructor() {
    this.decoys = {
      standard_webhooks: standardWebhooksSecret(randomBytes(STANDARD_WEBHOOKS_SECRET_BYTES)),
      github: randomBytes(24).toString('base64url'),
      stripe: 'whsec_' + randomAlphanumerics(32),
      shopify: 'shpss_' + randomBytes(16).toString('hex'),
      gitlab: randomBytes(24).toString('base64url'),
      linear: 'lin_wh_' + randomAlphanumerics(44),
      sentry: randomBytes(32).toString('hex'),
      pagerduty: randomBytes(48).toString('base64'),
      zendesk: randomBytes(32).toString('base64'),
      svix: standardWebhooksSecret(randomBytes(24)),
      slack: randomBytes(16).toString('hex'),
      zoom: randomBytes(16).toString('base64url'),
      discord: discordPublicKey(),
      twitch: randomAlphanumerics(32),
      x: randomAlphanumerics(50),
      meta: sealedCredential('meta', { secret: randomBytes(16).toString('hex'), verifyToken: randomAlphanumerics(32) }),
      microsoft_graph: randomAlphanumerics(32),
    };
  }

  decoySecret(scheme: SignedScheme): string {
    return this.decoys[scheme];
  }

  answer(handshake: Handshake, secret: string): HandshakeAnswer | undefined {
    try {
      // A stored credential the scheme cannot use is answered for as the decoy is (X: a decoy's token; Meta: no match).
      return answerHandshake(handshake, CHECKS[handshake.scheme].takes(secret) ? secret : this.decoys[handshake.scheme]);
    } catch {
      return undefined;
    }
  }

  async verify(delivery: SignedDelivery): Promise<SignatureVerdict> {
    try {
      const utf8 = isUtf8(delivery.body);
      const scheme = CHECKS[delivery.scheme];
      const taken = scheme.takes(delivery.secret);
      const verdict = await scheme.check(taken ? delivery : { ...delivery, secret: this.decoys[delivery.scheme] });
      return !verdict.valid || (taken && utf8 && delivery.body.length > 0) ? verdict : refused('signature_mismatch');
    } catch {
      return refused('signature_mismatch');
    }
  }
}

/** The public key (hex) of a fresh Ed25519 pair whose private key is dropped: no sender can sign for it. */
function discordPublicKey(): string {
  const der = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32).toString('hex');
}

/** Letters and digits from the CSPRNG, each equally likely (bytes past the last whole alphabet are drawn again). */
function randomAlphanumerics(count: number): string {
  const limit = 256 - (256 % ALPHANUMERIC.length);
  let text = '';
  while (text.length < count) {
    for (const byte of randomBytes(count)) {
      if (byte < limit && text.length < count) text += ALPHANUMERIC[byte % ALPHANUMERIC.length];
    }
  }
  return text;
}
