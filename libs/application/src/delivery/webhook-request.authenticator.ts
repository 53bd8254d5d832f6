import type { SignedScheme } from '@wts/contracts';
import {
  DECOY_DIGEST,
  looksLikeHandshake,
  parseBearerSecret,
  refusalCodeOf,
  secretMatchesDigest,
  type ConfiguredWebhook,
  type RoutineState,
} from '@wts/domain';
import type { ConfigurationState } from '../configuration/configuration.state';
import type { Clock } from '../shared/runtime.port';
import type { SignatureVerifier } from '../signing/signature.verifier';
import type { TriggerWebhookOutcome, TriggerWebhookRequest } from './trigger-webhook.request';
import type { AttemptReason } from './webhook-activity.recorder';
import { lookUpCredential, type RecordAttempt } from './webhook-handshake.responder';

/** An authenticated request's webhook and routine; for a signed one, the credential it was checked with. */
export type Authenticated = { readonly webhook: ConfiguredWebhook; readonly routine: RoutineState; readonly secret?: string };

/**
 * Who a request to the public endpoint is: the bearer check (the spec's secret) or a signed
 * sender's check, each doing the same work whatever the endpoint is (unknown, disabled, another
 * scheme's, or a bad proof), and recording every refusal after the answer through `record`.
 */
export class WebhookRequestAuthenticator {
  constructor(
    private readonly config: ConfigurationState,
    private readonly signatures: SignatureVerifier | undefined,
    private readonly clock: Clock,
    /** WEBHOOK_SIGNATURE_TOLERANCE_SECONDS. */
    private readonly toleranceSeconds: number,
    private readonly record: RecordAttempt,
  ) {}

  /**
   * Same work whether the endpoint is unknown, disabled or the secret wrong: hash and compare, and
   * one deferred recording (that finds nothing to record for an unknown id).
   */
  bearer(command: TriggerWebhookRequest): Authenticated | undefined {
    const webhook = this.config.webhook(command.webhookId);
    const secret = parseBearerSecret(command.authorization) ?? '';
    const matches = secretMatchesDigest(secret, webhook?.secretDigest ?? DECOY_DIGEST) && secret !== '';
    if (!webhook || !matches || webhook.status !== 'enabled') {
      this.record(
        webhook?.webhookId,
        matches ? 'webhook_disabled' : webhook?.secretDigest === null ? 'wrong_scheme' : 'wrong_secret',
        command,
      );
      return undefined;
    }
    const routine = this.config.routine(webhook.routineId);
    return routine ? { webhook, routine } : undefined;
  }

  /**
   * The signed counterpart of `bearer`: one library check whatever the endpoint is. A bearer
   * header sent to a signed webhook never gets here (no signature header: the bearer check, which
   * finds no digest to match); a signature for another scheme is checked against the decoy.
   */
  async signed(command: TriggerWebhookRequest, scheme: SignedScheme, body: Buffer): Promise<Authenticated | undefined> {
    const { webhook, own } = lookUpCredential(this.config, command.webhookId, scheme);
    const verdict = this.signatures
      ? await this.signatures.verify({
          scheme,
          secret: own ?? this.signatures.decoySecret(scheme),
          body,
          headers: command.signature ?? {},
          nowMs: this.clock.now().getTime(),
          toleranceSeconds: this.toleranceSeconds,
        })
      : ({ valid: false, reason: 'signature_mismatch' } as const);
    const matches = verdict.valid && own !== undefined;
    if (!webhook || !matches || webhook.status !== 'enabled') {
      const reason = signedRefusal(webhook, scheme, matches, verdict);
      // Whether it was a handshake is read from the request after the answer, whatever the endpoint and the reason.
      this.record(webhook?.webhookId, reason, command, () => {
        const handshakeForm = looksLikeHandshake(scheme, command.signature ?? {}, body);
        return handshakeForm && SIGNATURE_FAILURES.has(reason) ? 'handshake_refused' : reason;
      });
      return undefined;
    }
    const routine = this.config.routine(webhook.routineId);
    return routine && own !== undefined ? { webhook, routine, secret: own } : undefined;
  }
}

export const NOT_FOUND: TriggerWebhookOutcome = { kind: 'rejected', code: 'webhook_not_found', detail: 'not found' };

export /** The one refusal of a request claiming `scheme`: the 404, or Discord's 401 (refusalCodeOf). */
function refusal(scheme: SignedScheme): TriggerWebhookOutcome {
  const code = refusalCodeOf(scheme);
  return code === 'webhook_not_found' ? NOT_FOUND : { kind: 'rejected', code, detail: 'unauthorized' };
}

/** The refusals that are a failed proof (what a refused handshake is recorded as). */
const SIGNATURE_FAILURES: ReadonlySet<AttemptReason> = new Set<AttemptReason>([
  'missing_signature',
  'malformed_signature',
  'signature_mismatch',
  'timestamp_outside_tolerance',
]);

/** Why a signed attempt was refused, for the owner: the scheme did not match, the webhook is disabled, or how the signature failed. */
function signedRefusal(
  webhook: ConfiguredWebhook | undefined,
  scheme: SignedScheme,
  matches: boolean,
  verdict: { readonly valid: boolean; readonly reason?: AttemptReason },
): AttemptReason {
  if (matches) return 'webhook_disabled';
  // A request with no credential at all (checked as Graph's) to a bearer webhook lacks its secret.
  if (webhook && webhook.scheme === 'bearer' && scheme === 'microsoft_graph') return 'wrong_secret';
  if (webhook && webhook.scheme !== scheme) return 'wrong_scheme';
  return verdict.reason ?? 'signature_mismatch';
}
