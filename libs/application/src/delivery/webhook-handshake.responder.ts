import type { SignedScheme } from '@wts/contracts';
import type { ConfiguredWebhook, Handshake, QueryHandshake } from '@wts/domain';
import type { ConfigurationState } from '../configuration/configuration.state';
import type { SignatureVerifier } from '../signing/signature.verifier';
import type { TriggerWebhookOutcome, TriggerWebhookRequest } from './trigger-webhook.request';
import type { AttemptReason } from './webhook-activity.recorder';

/** A webhook as the request names it, and its opened credential when it verifies `scheme`. */
export interface CredentialLookup {
  readonly webhook: ConfiguredWebhook | undefined;
  /** The webhook's own credential: only for a known webhook of the scheme whose secret is opened. */
  readonly own: string | undefined;
}

/**
 * The webhook and its credential for a request claiming `scheme`. An unknown id looks up the
 * scheme's decoy webhook and its signing secret as a known id looks up its own (docs/timing.md,
 * "Signed senders", item 2) — and is still checked against the decoy secret.
 */
export function lookUpCredential(config: ConfigurationState, webhookId: string, scheme: SignedScheme): CredentialLookup {
  const webhook = config.webhook(webhookId);
  const subject = webhook ?? config.signedDecoy(scheme);
  const stored =
    subject?.scheme === scheme && subject.signingSecretId ? config.signingSecret(subject.webhookId, subject.signingSecretId) : undefined;
  return { webhook, own: webhook === undefined ? undefined : stored };
}

/** Records a refused attempt after the answer; `refine`, when given, says the reason then (read from the request after the answer). */
export type RecordAttempt = (
  webhookId: string | undefined,
  reason: AttemptReason,
  command: TriggerWebhookRequest,
  refine?: () => AttemptReason,
) => void;

/**
 * Providers' URL-verification handshakes, answered by the service for a webhook of their scheme:
 * no delivery, no run, a line in the webhook's activity (`handshake_answered`, or why it was not).
 */
export class WebhookHandshakeResponder {
  constructor(
    private readonly config: ConfigurationState,
    private readonly signatures: SignatureVerifier | undefined,
    private readonly record: RecordAttempt,
  ) {}

  /**
   * A handshake read from the query. Meta's carries a proof (the verify token): answered only for an
   * enabled Meta webhook whose token it is, the one 404 otherwise — after the same constant-time
   * comparison, against a decoy token when the webhook is not such a one. X's CRC and Graph's
   * validation carry none: they are answered for every id, so that the answer tells nothing about
   * the id — X's `response_token` is then an HMAC under a decoy secret, which X refuses and nobody
   * else can tell from a real one; Graph's is the token echoed, which needs no secret at all.
   */
  answerQuery(command: TriggerWebhookRequest, handshake: QueryHandshake): TriggerWebhookOutcome {
    const { webhook, own } = lookUpCredential(this.config, command.webhookId, handshake.scheme);
    const enabled = webhook?.status === 'enabled';
    const answer = this.signatures?.answer(handshake, (enabled ? own : undefined) ?? this.signatures.decoySecret(handshake.scheme));
    const proven = own !== undefined && enabled && answer !== undefined;
    this.record(webhook?.webhookId, this.reasonOf(webhook, handshake.scheme, proven), command);
    if (answer === undefined || (handshake.scheme === 'meta' && !proven)) return NOT_FOUND;
    return { kind: 'handshake', answer };
  }

  /** A signed handshake whose signature checked out, for the enabled webhook of its scheme. */
  answerSigned(command: TriggerWebhookRequest, webhook: ConfiguredWebhook, handshake: Handshake, secret: string): TriggerWebhookOutcome {
    const answer = this.signatures?.answer(handshake, secret);
    this.record(webhook.webhookId, answer ? 'handshake_answered' : 'handshake_refused', command);
    return answer ? { kind: 'handshake', answer } : NOT_FOUND;
  }

  private reasonOf(webhook: ConfiguredWebhook | undefined, scheme: SignedScheme, proven: boolean): AttemptReason {
    if (webhook && webhook.scheme !== scheme) return 'wrong_scheme';
    if (webhook && webhook.status !== 'enabled') return 'webhook_disabled';
    return proven ? 'handshake_answered' : 'handshake_refused';
  }
}

const NOT_FOUND: TriggerWebhookOutcome = { kind: 'rejected', code: 'webhook_not_found', detail: 'not found' };
