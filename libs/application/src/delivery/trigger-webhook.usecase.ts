import type { SignedScheme } from '@wts/contracts';
import {
  bodyFits,
  checkContentEncoding,
  claimedScheme,
  extractRequest,
  queryHandshakeOf,
  signedHandshakeOf,
  extractSignedRequest,
  signedDeliveryFacts,
  isRejection,
  judgeRoutineSafety,
  parseContentType,
  parseIdempotencyKey,
  payloadExpiry,
  reject,
  replayGuard,
  resolveTriggerAccount,
  ruleDigest,
  type ConfiguredWebhook,
  type QueryHandshake,
  type ExtractedRequest,
  type Rejection,
} from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import { DeliveryAppender, type DeliveryToAccept } from './delivery.writer';
import { PlainPayload, RoutineRulesGate, filterVerdict, schemaMismatch } from './routine-rules.gate';
import { freshenForDecision } from './decision-freshness.policy';
import { filterHeaders } from './filter-headers.policy';
import { digests } from './request-digests.policy';
import type { ConfigurationState } from '../configuration/configuration.state';
import type { Clock, RandomSource } from '../shared/runtime.port';
import { childTraceparent } from '../shared/trace-context';
import type { UseCaseContext } from '../shared/use-case.context';
import type { RateLimiter, RateLimitState } from './rate-limiter.port';
import type { SignatureVerifier } from '../signing/signature.verifier';
import { UNKNOWN_WEBHOOK_ATTEMPTS, type AttemptReason, type WebhookActivityRecorder } from './webhook-activity.recorder';
import { WebhookHandshakeResponder } from './webhook-handshake.responder';
import { NOT_FOUND, WebhookRequestAuthenticator, refusal, type Authenticated } from './webhook-request.authenticator';
import type { TriggerWebhookRequest, TriggerWebhookOutcome } from './trigger-webhook.request';

export interface TriggerLimits {
  readonly maxPayloadBytes: number;
  readonly idempotencyRetentionMs: number;
  /** The largest event the store (and Kafka, when relayed) takes: a body whose events could exceed it is a 413. */
  readonly maxEventBytes: number;
  /** WEBHOOK_SIGNATURE_TOLERANCE_SECONDS: how far a signed timestamp may be from now; a GitHub repeat replays at least this long. */
  readonly signatureToleranceSeconds: number;
  readonly payloadRetentionSeconds: number; // PAYLOAD_RETENTION_SECONDS: unless its webhook keeps payloads its own time
}

export interface TriggerWebhookDependencies {
  /** The store, the configuration (kept fresh through it), the clock and randomness. */
  readonly context: UseCaseContext;
  readonly rateLimiter: RateLimiter;
  readonly activity: WebhookActivityRecorder;
  readonly limits: TriggerLimits;
  /** Checks signed senders' signatures; absent: a request claiming a signature is the one 404. */
  readonly signatures?: SignatureVerifier | undefined;
}

/** A signed request whose signature checked out: its scheme and the body it was checked over. */
type VerifiedBody = { readonly scheme: SignedScheme; readonly bytes: Buffer; readonly secret: string };

export { UNKNOWN_WEBHOOK_ATTEMPTS };

/**
 * The public endpoint, in the contract's order: auth (404) → content type (415) → size (413) →
 * rate limit (429) → body and account rules (400) → safety block (403) → idempotency → append.
 */
export class TriggerWebhookUseCase {
  private readonly context: UseCaseContext;
  private readonly store: EventStore;
  private readonly config: ConfigurationState;
  private readonly clock: Clock;
  private readonly random: RandomSource;
  private readonly rateLimiter: RateLimiter;
  private readonly activity: WebhookActivityRecorder;
  private readonly limits: TriggerLimits;
  private readonly appender: DeliveryAppender;
  private readonly signatures: SignatureVerifier | undefined;
  private readonly handshakes: WebhookHandshakeResponder;
  private readonly authenticator: WebhookRequestAuthenticator;
  private readonly rules = new RoutineRulesGate();

  constructor(dependencies: TriggerWebhookDependencies) {
    this.context = dependencies.context;
    this.signatures = dependencies.signatures;
    this.rateLimiter = dependencies.rateLimiter;
    this.activity = dependencies.activity;
    this.limits = dependencies.limits;
    ({ store: this.store, config: this.config, clock: this.clock, random: this.random } = this.context);
    this.appender = new DeliveryAppender(this.store, this.random);
    const record = this.record.bind(this);
    this.handshakes = new WebhookHandshakeResponder(this.config, this.signatures, record);
    this.authenticator = new WebhookRequestAuthenticator(
      this.config,
      this.signatures,
      this.clock,
      this.limits.signatureToleranceSeconds,
      record,
    );
  }

  async execute(command: TriggerWebhookRequest): Promise<TriggerWebhookOutcome> {
    const method = command.method ?? 'POST';
    const handshake = queryHandshakeOf(method, command.query ?? {});
    // A GET that is no handshake: the one 404 at once, as for any unknown route (a fact of the request).
    if (method !== 'POST' && handshake === undefined) return NOT_FOUND;
    // Decide on state that includes every change committed before this request (any replica).
    const scheme = handshake?.scheme ?? claimedScheme(command.signature ?? {}, command.authorization);
    await freshenForDecision(this.context, command.webhookId, scheme);
    if (handshake !== undefined) return this.answerQueryHandshake(command, handshake);
    if (scheme !== 'bearer') return this.executeSigned(command, scheme);
    const auth = this.authenticator.bearer(command);
    if (!auth) return NOT_FOUND;
    return this.recorded(command, auth, await this.afterAuthentication(command, auth, undefined));
  }

  /**
   * A request carrying a signature header: its body is read first (bounded by the payload limit, the
   * one way every signed request is read, whatever the endpoint is) and its signature checked with
   * the provider's library — against a decoy secret when the endpoint is unknown, disabled, verifies
   * another scheme or has no readable secret — so every refusal is the one 404 after the same work. A
   * body over the limit is a 413 before any check: the answer depends on the request alone, never on
   * the endpoint, and a sender learns its body is too large instead of a misleading 404.
   */
  private async executeSigned(command: TriggerWebhookRequest, scheme: SignedScheme): Promise<TriggerWebhookOutcome> {
    const body = await command.readBody(this.limits.maxPayloadBytes);
    if (body.kind === 'too_large') {
      this.record(this.config.webhook(command.webhookId)?.webhookId, 'payload_too_large', command);
      return reject('payload_too_large', `the body exceeds ${this.limits.maxPayloadBytes} bytes`);
    }
    const auth = await this.authenticator.signed(command, scheme, body.bytes);
    if (!auth?.secret) return refusal(scheme);
    return this.recorded(command, auth, await this.afterAuthentication(command, auth, { scheme, bytes: body.bytes, secret: auth.secret }));
  }

  /**
   * X's CRC, Meta's subscription check, Graph's validation (docs/signed-senders.md, "Handshakes").
   * Graph's POST has a body (empty, as Graph sends it): it is read, bounded, as every POST's is.
   */
  private async answerQueryHandshake(command: TriggerWebhookRequest, handshake: QueryHandshake): Promise<TriggerWebhookOutcome> {
    if ((command.method ?? 'POST') === 'POST' && (await command.readBody(this.limits.maxPayloadBytes)).kind === 'too_large') {
      return reject('payload_too_large', `the body exceeds ${this.limits.maxPayloadBytes} bytes`);
    }
    return this.handshakes.answerQuery(command, handshake);
  }

  private recorded(command: TriggerWebhookRequest, auth: Authenticated, outcome: TriggerWebhookOutcome): TriggerWebhookOutcome {
    if (outcome.kind === 'rejected') this.record(auth.webhook.webhookId, outcome.code, command);
    return outcome;
  }

  /**
   * Records a refused attempt after the answer: the outcome is returned (and the reply sent, in the
   * same turn) before the recording runs, so no refusal waits for it — nor differs in what it does
   * before answering or after. An unknown id is recorded the same way, under UNKNOWN_WEBHOOK_ATTEMPTS
   * (listed nowhere: nobody owns it, and only its newest rows are kept like any webhook's), so that
   * an unknown id and a known one with a wrong secret cost the same, even in aggregate.
   */
  private record(webhookId: string | undefined, reason: AttemptReason, command: TriggerWebhookRequest, refine?: () => AttemptReason): void {
    setImmediate(() => {
      this.activity.recordAttempt({
        webhookId: webhookId ?? UNKNOWN_WEBHOOK_ATTEMPTS,
        reason: refine ? refine() : reason,
        at: this.clock.now().toISOString(),
        sourceAddress: command.sourceAddress,
      });
    });
  }

  /** The filter said false: the delivery is recorded as filtered (no payload kept, no run) and answered 200. */
  private async filtered(
    base: DeliveryToAccept,
    webhook: ConfiguredWebhook,
    eventType: string,
    traceparent: string,
    rateLimit: RateLimitState,
  ): Promise<TriggerWebhookOutcome> {
    const deliveryId = await this.appender.appendFiltered(base, { eventType, filterDigest: ruleDigest(webhook.filter ?? '') }, traceparent);
    this.activity.recordDelivery({ webhookId: webhook.webhookId, outcome: 'filtered', at: base.now });
    return { kind: 'filtered', body: { delivery_id: deliveryId, run_id: null, status: 'filtered' }, rateLimit };
  }

  private async afterAuthentication(
    command: TriggerWebhookRequest,
    { webhook, routine }: Authenticated,
    signed: VerifiedBody | undefined,
  ): Promise<TriggerWebhookOutcome> {
    const contentType = parseContentType(command.contentType);
    if (isRejection(contentType)) return contentType;
    const encoding = checkContentEncoding(command.contentEncoding);
    if (encoding) return encoding;
    const body = signed ? { kind: 'read' as const, bytes: signed.bytes } : await command.readBody(this.limits.maxPayloadBytes);
    if (body.kind === 'too_large') {
      return reject('payload_too_large', `the body exceeds ${this.limits.maxPayloadBytes} bytes`);
    }
    if (!bodyFits(body.bytes.length, this.config.routineSnapshotBytes(routine.routineId), this.limits.maxEventBytes)) {
      // Only a routine with very long instructions gets here: with it, the run could not be stored.
      return reject(
        'payload_too_large',
        `with this routine, a body of ${body.bytes.length} bytes could make a run larger than the store accepts`,
      );
    }
    const rateLimit = await this.rateLimiter.consume(webhook.webhookId);
    if (!rateLimit.allowed) return { ...reject('rate_limited', 'too many requests for this webhook'), rateLimit };

    const withLimit = (rejection: Rejection): TriggerWebhookOutcome => ({ ...rejection, rateLimit });
    // A signed delivery's payload is the whole body, and it selects no account: the default runs it.
    const accountHeader = signed ? undefined : command.accountHeader;
    const extracted: ExtractedRequest | Rejection = signed
      ? extractSignedRequest({ bytes: body.bytes, contentType })
      : extractRequest({ bytes: body.bytes, contentType, accountHeader });
    if (isRejection(extracted)) return withLimit(extracted);
    const handshake = signed ? signedHandshakeOf(signed.scheme, command.signature ?? {}, extracted.json) : undefined;
    if (signed && handshake) return this.handshakes.answerSigned(command, webhook, handshake, signed.secret);
    const facts = signed ? signedDeliveryFacts(signed.scheme, command.signature ?? {}, extracted.json) : undefined;
    if (isRejection(facts)) return withLimit(facts);
    const payload = new PlainPayload(extracted);
    const schemaErrors = this.rules.schemaErrors(webhook, payload);
    if (schemaErrors) return { ...schemaMismatch(schemaErrors), errors: schemaErrors, rateLimit };
    const triggerAccount = resolveTriggerAccount({
      selection: extracted.accountSelection,
      accountOverrideAllowed: webhook.accountOverrideAllowed,
      defaultAccount: webhook.defaultAccount,
      routineScope: routine.accountScope,
      catalog: this.config.accounts(),
    });
    if (isRejection(triggerAccount)) return withLimit(triggerAccount);
    const idempotencyKey = facts ? facts.idempotencyKey : parseIdempotencyKey(command.idempotencyKey);
    if (isRejection(idempotencyKey)) return withLimit(idempotencyKey);
    const guard = replayGuard(signed?.scheme, command.signature ?? {}, idempotencyKey, this.limits, body.bytes);
    // Judged on the routine as it is now: making it safer lifts the block by itself.
    const safety = judgeRoutineSafety(routine);
    if (safety.blocked) return withLimit(reject('webhook_blocked', `${safety.reason} ${safety.remedy}`));
    const eventType = facts?.sender.eventType ?? '';
    const filter = this.rules.filter(webhook, { eventType, headers: () => filterHeaders(command), payload });

    const now = this.clock.now();
    const base: DeliveryToAccept = {
      type: 'AcceptDelivery',
      webhookId: webhook.webhookId,
      routineId: routine.routineId,
      triggerAccount,
      payload: extracted.payload,
      contentType: contentType.mediaType,
      idempotencyKey: idempotencyKey ?? null,
      ...digests(
        {
          mediaType: contentType.mediaType,
          charset: contentType.charset,
          accountHeader,
          bytes: body.bytes,
          json: extracted.json,
        },
        idempotencyKey,
      ),
      now: now.toISOString(),
      retentionMs: guard.windowMs,
      payloadExpiresAt: payloadExpiry(now, webhook.payloadRetentionDays, this.limits.payloadRetentionSeconds),
      ...(facts ? { sender: facts.sender } : {}),
      ...(filter ? { filter: filterVerdict(filter) } : {}),
    };
    const traceparent = childTraceparent(command.traceparent, this.random);
    if (filter?.result === 'not_matched') return this.filtered(base, webhook, eventType, traceparent, rateLimit);
    const result =
      guard.key === undefined
        ? await this.appender.appendFresh(base, traceparent)
        : await this.appender.appendIdempotent(base, guard.key, traceparent);
    if (isRejection(result)) return withLimit(result);
    if (result.replayed) this.activity.recordReplay(result.delivery.deliveryId);
    else
      this.activity.recordDelivery(
        filter?.result === 'error'
          ? { webhookId: webhook.webhookId, outcome: 'filter_error', at: base.now, sourceAddress: command.sourceAddress }
          : { webhookId: webhook.webhookId, outcome: 'accepted', at: base.now },
      );
    return {
      kind: 'accepted',
      body: { delivery_id: result.delivery.deliveryId, run_id: result.delivery.runId, status: 'accepted' },
      replayed: result.replayed,
      rateLimit,
      ...(filter?.result === 'error' && !result.replayed ? { filterError: true } : {}),
    };
  }
}

export type { RateLimitState };
