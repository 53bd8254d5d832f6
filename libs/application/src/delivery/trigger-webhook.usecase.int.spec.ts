import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACCOUNT_CATALOG_STREAM, Streams } from '@wts/contracts';
import {
  DECOY_DIGEST,
  bytesDigest,
  deliveryIdForIdempotencyKey,
  digestSecret,
  idempotencyIndexId,
  largestBodyThatFits,
  runIdForDelivery,
} from '@wts/domain';
import {
  EventStoreUnavailableError,
  InvalidAppendError,
  SqliteEventStore,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
} from '@wts/event-store';
import { ACCOUNT_A, ACCOUNT_B, ACCOUNT_C, ROUTINE_ID, WEBHOOK_ID, triageRoutine } from '@wts/testing';
import { ConfigurationState } from '../configuration/configuration.state';
import type { ConfigurationFreshness } from '../configuration/configuration.feeder';
import { cryptoRandom } from '../shared/system-runtime.adapter';
import { UseCaseContext } from '../shared/use-case.context';
import { AppendOutcomeUnknownError } from './append-outcome.errors';
import type { RateLimitState, RateLimiter } from './rate-limiter.port';
import type { TriggerWebhookRequest, TriggerWebhookOutcome } from './trigger-webhook.request';
import { TriggerWebhookUseCase, UNKNOWN_WEBHOOK_ATTEMPTS, type TriggerLimits } from './trigger-webhook.usecase';
import { stored } from '../../../../test/support/kafka-test-kit';
import type { RejectedAttempt, WebhookActivityRecorder } from './webhook-activity.recorder';

/**
 * The public endpoint's use case without HTTP, on a real SQLite store: the contract's order, the
 * equal work of every 404 path, the delivery append ("stream must not exist", the outcome of an
 * unconfirmed append) and idempotency across retention windows. The HTTP specs cover the same
 * rules through the route; these are fast enough for mutation testing (`npm run mutate`).
 */

const SECRET = 'whsec_use-case-spec-secret';
/** Its email is ACCOUNT_A's minus the last letter: two requests can differ only in where the header ends and the body starts. */
const PREFIX_ACCOUNT = ACCOUNT_C;
const UNKNOWN_WEBHOOK_ID = 'whk_ZZZZZZZZZZZZZZZZZZZZZZ';
const T0 = Date.parse('2026-05-01T12:00:00.000Z');
const RETENTION_MS = 60_000;
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const ALLOWED: RateLimitState = { allowed: true, limit: 60, remaining: 59, resetSeconds: 60, windowSeconds: 60 };

const routineCreated = (routineId: string): EventToAppend =>
  stored('RoutineCreated', {
    routineId,
    ...triageRoutine({ tools: [], accountScope: [ACCOUNT_A, ACCOUNT_B, PREFIX_ACCOUNT] }),
    createdAt: new Date(T0).toISOString(),
  });

const webhookEnabled = (webhookId: string, routineId: string, secretDigest = digestSecret(SECRET)): EventToAppend =>
  stored('WebhookEnabled', {
    webhookId,
    routineId,
    secretDigest,
    defaultAccount: { accountId: ACCOUNT_A, email: 'ops@example.com' },
    accountOverrideAllowed: true,
    enabledAt: new Date(T0).toISOString(),
  });

/** Folds exactly the streams a decision asks for, when it asks (as ConfigurationFeeder does after a head moved), and records each ask. */
class RecordingFreshness implements ConfigurationFreshness {
  readonly asked: string[][] = [];
  failWith: Error | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly state: ConfigurationState,
  ) {}

  async ensureFresh(streamIds: readonly string[]): Promise<void> {
    this.asked.push([...streamIds]);
    if (this.failWith) throw this.failWith;
    for (const streamId of streamIds) await this.catchUpStream(streamId);
  }

  async catchUpStream(streamId: string): Promise<void> {
    for (const recorded of await this.store.readStream(streamId)) this.state.apply(recorded);
  }
}

/** A limiter the test sets: allowed by default, counting the calls. */
class ScriptedLimiter implements RateLimiter {
  readonly keys: string[] = [];
  next: RateLimitState = ALLOWED;

  consume(key: string): Promise<RateLimitState> {
    this.keys.push(key);
    return Promise.resolve(this.next);
  }
}

/** The real store, with appends that can be made to fail or conflict the way a remote store can. */
class FaultyStore {
  appendFault: (() => Promise<AppendResult>) | undefined;
  readonly appends: { streamId: string; expected: ExpectedRevision }[] = [];
  /** Streams whose head the next look reports as absent: the stream moved after this request looked. */
  readonly staleOnce = new Set<string>();

  constructor(readonly real: EventStore) {}

  asEventStore(): EventStore {
    return new Proxy(this.real, {
      get: (target, property, receiver) => {
        if (property === 'streamHeads') {
          return async (streamIds: readonly string[]): Promise<ReadonlyMap<string, bigint>> => {
            const heads = new Map(await target.streamHeads(streamIds));
            for (const streamId of streamIds) if (this.staleOnce.delete(streamId)) heads.set(streamId, -1n);
            return heads;
          };
        }
        if (property === 'append') {
          return async (streamId: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> => {
            this.appends.push({ streamId, expected });
            if (this.appendFault && streamId.startsWith('delivery-')) return this.appendFault();
            return target.append(streamId, events, expected);
          };
        }
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}

describe('TriggerWebhookUseCase', () => {
  let dir: string;
  let real: SqliteEventStore;
  let store: FaultyStore;
  let state: ConfigurationState;
  let freshness: RecordingFreshness;
  let limiter: ScriptedLimiter;
  let attempts: RejectedAttempt[];
  let replays: string[];
  let nowMs: number;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wts-trigger-'));
    real = SqliteEventStore.open(join(dir, 'events.sqlite'));
    store = new FaultyStore(real);
    await real.append(
      ACCOUNT_CATALOG_STREAM,
      [
        stored('AccountConnected', {
          accountId: ACCOUNT_A,
          email: 'ops@example.com',
          aliases: [],
          connectedAt: new Date(T0).toISOString(),
        }),
        stored('AccountConnected', {
          accountId: ACCOUNT_B,
          email: 'other@example.com',
          aliases: [],
          connectedAt: new Date(T0).toISOString(),
        }),
        stored('AccountConnected', {
          accountId: PREFIX_ACCOUNT,
          email: 'ops@example.co',
          aliases: [],
          connectedAt: new Date(T0).toISOString(),
        }),
      ],
      'no_stream',
    );
    await real.append(Streams.routine(ROUTINE_ID), [routineCreated(ROUTINE_ID)], 'no_stream');
    await real.append(Streams.webhook(WEBHOOK_ID), [webhookEnabled(WEBHOOK_ID, ROUTINE_ID)], 'no_stream');
    state = new ConfigurationState();
    freshness = new RecordingFreshness(real, state);
    limiter = new ScriptedLimiter();
    attempts = [];
    replays = [];
    nowMs = T0;
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await real.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function useCase(limits: Partial<TriggerLimits> = {}): TriggerWebhookUseCase {
    const recorder: WebhookActivityRecorder = {
      recordAttempt: (attempt) => attempts.push(attempt),
      recordReplay: (deliveryId) => replays.push(deliveryId),
      recordDelivery: () => undefined,
    };
    const context = new UseCaseContext(store.asEventStore(), state, { now: () => new Date(nowMs) }, cryptoRandom, freshness);
    return new TriggerWebhookUseCase({
      context,
      rateLimiter: limiter,
      activity: recorder,
      limits: {
        maxPayloadBytes: 1024,
        idempotencyRetentionMs: RETENTION_MS,
        maxEventBytes: 1024 * 1024,
        signatureToleranceSeconds: 300,
        payloadRetentionSeconds: 86_400,
        ...limits,
      },
    });
  }

  const bodyReads: number[] = [];
  function command(overrides: Partial<TriggerWebhookRequest> & { body?: string } = {}): TriggerWebhookRequest {
    const { body = '{"alert":"disk full"}', ...rest } = overrides;
    return {
      webhookId: WEBHOOK_ID,
      authorization: `Bearer ${SECRET}`,
      contentType: 'application/json',
      accountHeader: undefined,
      idempotencyKey: undefined,
      traceparent: TRACEPARENT,
      sourceAddress: '192.0.2.7',
      readBody: (maxBytes) => {
        bodyReads.push(maxBytes);
        return Promise.resolve({ kind: 'read', bytes: Buffer.from(body) });
      },
      ...rest,
    };
  }

  const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  function accepted(outcome: TriggerWebhookOutcome): Extract<TriggerWebhookOutcome, { kind: 'accepted' }> {
    if (outcome.kind === 'handshake' || outcome.kind === 'filtered') throw new Error(`expected a 202, got ${outcome.kind}`);
    if (outcome.kind !== 'accepted') throw new Error(`expected a 202, got ${outcome.code}: ${outcome.detail}`);
    return outcome;
  }

  async function deliveryStream(deliveryId: string) {
    return real.readStream(Streams.delivery(deliveryId));
  }

  describe('accepting', () => {
    it('appends one DeliveryAccepted at revision 0 of a new delivery stream, with the run id derived from the delivery id', async () => {
      const outcome = accepted(await useCase().execute(command()));
      const { delivery_id: deliveryId, run_id: runId } = outcome.body;
      expect(outcome).toMatchObject({ replayed: false, rateLimit: ALLOWED, body: { status: 'accepted' } });
      expect(deliveryId).toMatch(/^dlv_/);
      expect(runId).toBe(runIdForDelivery(deliveryId));
      const stream = await deliveryStream(deliveryId);
      expect(stream.map((recorded) => [recorded.type, recorded.revision])).toEqual([['DeliveryAccepted', 0n]]);
      expect(stream[0].data).toMatchObject({
        deliveryId,
        runId,
        webhookId: WEBHOOK_ID,
        routineId: ROUTINE_ID,
        triggerAccount: { accountId: ACCOUNT_A },
        contentType: 'application/json',
        idempotencyKey: null,
        receivedAt: new Date(T0).toISOString(),
      });
      expect(store.appends).toEqual([{ streamId: Streams.delivery(deliveryId), expected: 'no_stream' }]);
      expect(limiter.keys).toEqual([WEBHOOK_ID]);
      await nextTurn();
      expect(attempts).toEqual([]);
      expect(replays).toEqual([]);
    });

    it('the event carries the delivery as correlation and causation and a child of the caller trace (same trace, new span)', async () => {
      const outcome = accepted(await useCase().execute(command()));
      const [recorded] = await deliveryStream(outcome.body.delivery_id);
      expect(recorded.metadata).toMatchObject({ correlationId: outcome.body.delivery_id, causationId: outcome.body.delivery_id });
      const traceparent = String((recorded.metadata as { traceparent?: unknown }).traceparent);
      expect(traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
      expect(traceparent).not.toBe(TRACEPARENT);
    });

    it('two requests without a key are two deliveries, each of the time the clock gives', async () => {
      const first = accepted(await useCase().execute(command()));
      nowMs += 1_000;
      const second = accepted(await useCase().execute(command()));
      expect(second.body.delivery_id).not.toBe(first.body.delivery_id);
      expect((await deliveryStream(second.body.delivery_id))[0].data).toMatchObject({ receivedAt: new Date(T0 + 1_000).toISOString() });
    });

    it('the account a request names (override allowed) is the trigger account the delivery records', async () => {
      const viaHeader = accepted(
        await useCase().execute(command({ contentType: 'text/plain', accountHeader: 'other@example.com', body: 'disk full' })),
      );
      expect((await deliveryStream(viaHeader.body.delivery_id))[0].data).toMatchObject({
        triggerAccount: { accountId: ACCOUNT_B },
        contentType: 'text/plain',
      });
      const viaBody = accepted(await useCase().execute(command({ body: '{"account_email":"other@example.com","data":{}}' })));
      expect((await deliveryStream(viaBody.body.delivery_id))[0].data).toMatchObject({ triggerAccount: { accountId: ACCOUNT_B } });
    });
  });

  describe('the 404 paths do the same work', () => {
    /** Every timingSafeEqual the request makes, as [presented, expected] hex. */
    function spyComparisons(): string[][] {
      const calls: string[][] = [];
      // The module object secret.digest calls through (a spy on an `import * as` namespace cannot be set).
      const crypto = jest.requireActual<typeof import('node:crypto')>('node:crypto');
      const original = crypto.timingSafeEqual;
      jest.spyOn(crypto, 'timingSafeEqual').mockImplementation((a, b) => {
        calls.push([Buffer.from(a as Uint8Array).toString('hex'), Buffer.from(b as Uint8Array).toString('hex')]);
        return original(a, b);
      });
      return calls;
    }

    it('an unknown id is compared once against the decoy digest, looks at a routine stream that exists, and is recorded after the answer under the unknown-id bucket', async () => {
      await freshness.ensureFresh([Streams.webhook(WEBHOOK_ID), Streams.routine(ROUTINE_ID)]);
      freshness.asked.length = 0;
      const calls = spyComparisons();
      const outcome = await useCase().execute(command({ webhookId: UNKNOWN_WEBHOOK_ID }));
      expect(outcome).toEqual({ kind: 'rejected', code: 'webhook_not_found', detail: 'not found' });
      expect(calls).toEqual([[digestSecret(SECRET), DECOY_DIGEST]]);
      expect(freshness.asked).toEqual([[Streams.webhook(UNKNOWN_WEBHOOK_ID), ACCOUNT_CATALOG_STREAM, Streams.routine(ROUTINE_ID)]]);
      expect(attempts).toEqual([]);
      await nextTurn();
      expect(attempts).toEqual([
        { webhookId: UNKNOWN_WEBHOOK_ATTEMPTS, reason: 'wrong_secret', at: new Date(T0).toISOString(), sourceAddress: '192.0.2.7' },
      ]);
      expect(limiter.keys).toEqual([]);
      expect(store.appends).toEqual([]);
    });

    it('before any webhook was ever enabled here, an unknown id looks at a placeholder routine stream', async () => {
      await useCase().execute(command({ webhookId: UNKNOWN_WEBHOOK_ID }));
      expect(freshness.asked[0]).toEqual([Streams.webhook(UNKNOWN_WEBHOOK_ID), ACCOUNT_CATALOG_STREAM, Streams.routine('rtn_unknown')]);
    });

    it('a wrong secret is compared once against the stored digest, answered, and recorded after the answer', async () => {
      const calls = spyComparisons();
      const outcome = await useCase().execute(command({ authorization: 'Bearer whsec_wrong' }));
      expect(outcome).toEqual({ kind: 'rejected', code: 'webhook_not_found', detail: 'not found' });
      expect(calls).toEqual([[digestSecret('whsec_wrong'), digestSecret(SECRET)]]);
      expect(attempts).toEqual([]);
      await nextTurn();
      expect(attempts).toEqual([
        { webhookId: WEBHOOK_ID, reason: 'wrong_secret', at: new Date(T0).toISOString(), sourceAddress: '192.0.2.7' },
      ]);
      expect(store.appends).toEqual([]);
    });

    it('a malformed Authorization header is a wrong secret (one comparison, recorded as such)', async () => {
      const calls = spyComparisons();
      for (const authorization of ['Basic abc', `bearer${SECRET}`]) {
        expect(await useCase().execute(command({ authorization }))).toMatchObject({ code: 'webhook_not_found' });
      }
      expect(calls).toHaveLength(2);
      await nextTurn();
      expect(attempts.map((attempt) => attempt.reason)).toEqual(['wrong_secret', 'wrong_secret']);
    });

    it("no Authorization at all is checked as Graph's clientState (the body is its only proof): the 404, recorded as a wrong secret", async () => {
      expect(await useCase().execute(command({ authorization: undefined }))).toMatchObject({ code: 'webhook_not_found' });
      await nextTurn();
      expect(attempts.map((attempt) => attempt.reason)).toEqual(['wrong_secret']);
      expect(store.appends).toEqual([]);
    });

    it('an empty secret never matches, even a digest of the empty string', async () => {
      await real.append(
        Streams.webhook(WEBHOOK_ID),
        [stored('SecretRotated', { webhookId: WEBHOOK_ID, secretDigest: digestSecret(''), rotatedAt: new Date(T0).toISOString() })],
        0n,
      );
      expect(await useCase().execute(command({ authorization: 'Bearer ' }))).toMatchObject({ code: 'webhook_not_found' });
      expect(await useCase().execute(command({ authorization: undefined }))).toMatchObject({ code: 'webhook_not_found' });
    });

    it('a disabled webhook with the right secret is the same 404, recorded as webhook_disabled', async () => {
      await real.append(
        Streams.webhook(WEBHOOK_ID),
        [stored('WebhookDisabled', { webhookId: WEBHOOK_ID, disabledAt: new Date(T0).toISOString() })],
        0n,
      );
      const calls = spyComparisons();
      const outcome = await useCase().execute(command());
      expect(outcome).toEqual({ kind: 'rejected', code: 'webhook_not_found', detail: 'not found' });
      expect(calls).toHaveLength(1);
      await nextTurn();
      expect(attempts).toEqual([expect.objectContaining({ webhookId: WEBHOOK_ID, reason: 'webhook_disabled' })]);
      expect(store.appends).toEqual([]);
    });

    it('a webhook whose routine is not known is a 404, nothing appended', async () => {
      const orphan = 'whk_OOOOOOOOOOOOOOOOOOOOOO';
      await real.append(Streams.webhook(orphan), [webhookEnabled(orphan, 'rtn_MMMMMMMMMMMMMMMMMMMMMM')], 'no_stream');
      expect(await useCase().execute(command({ webhookId: orphan }))).toMatchObject({ code: 'webhook_not_found' });
      expect(store.appends).toEqual([]);
    });
  });

  describe('freshness', () => {
    it('reads the webhook, the catalog and the routine before deciding, and a routine seen for the first time is folded before use', async () => {
      // The webhook and its routine were made through another replica: nothing is folded here yet.
      accepted(await useCase().execute(command()));
      expect(freshness.asked).toEqual([
        [Streams.webhook(WEBHOOK_ID), ACCOUNT_CATALOG_STREAM, Streams.routine('rtn_unknown')],
        [Streams.routine(ROUTINE_ID)],
      ]);
      freshness.asked.length = 0;
      accepted(await useCase().execute(command()));
      expect(freshness.asked).toEqual([[Streams.webhook(WEBHOOK_ID), ACCOUNT_CATALOG_STREAM, Streams.routine(ROUTINE_ID)]]);
    });

    it('a secret rotated elsewhere is seen by the next request: the old secret is a 404', async () => {
      accepted(await useCase().execute(command()));
      await real.append(
        Streams.webhook(WEBHOOK_ID),
        [
          stored('SecretRotated', {
            webhookId: WEBHOOK_ID,
            secretDigest: digestSecret('whsec_new'),
            rotatedAt: new Date(T0).toISOString(),
          }),
        ],
        0n,
      );
      expect(await useCase().execute(command())).toMatchObject({ code: 'webhook_not_found' });
      accepted(await useCase().execute(command({ authorization: 'Bearer whsec_new' })));
    });

    it('when freshness cannot be confirmed the request fails (a 503 at the route): no decision, no append, nothing recorded', async () => {
      freshness.failWith = new EventStoreUnavailableError('heads unreadable');
      await expect(useCase().execute(command())).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(useCase().execute(command({ authorization: 'Bearer whsec_wrong' }))).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await nextTurn();
      expect(attempts).toEqual([]);
      expect(store.appends).toEqual([]);
    });
  });

  describe("after authentication, in the contract's order, each refusal recorded after the answer", () => {
    async function refusal(outcomePromise: Promise<TriggerWebhookOutcome>) {
      const outcome = await outcomePromise;
      if (outcome.kind !== 'rejected') throw new Error('expected a refusal');
      expect(attempts).toEqual([]);
      await nextTurn();
      expect(attempts).toEqual([expect.objectContaining({ webhookId: WEBHOOK_ID, reason: outcome.code, sourceAddress: '192.0.2.7' })]);
      expect(store.appends).toEqual([]);
      return outcome;
    }

    it('415 before the body is read or the limiter consumed', async () => {
      bodyReads.length = 0;
      const outcome = await refusal(useCase().execute(command({ contentType: 'application/xml' })));
      expect(outcome.code).toBe('unsupported_media_type');
      expect(outcome.rateLimit).toBeUndefined();
      expect(bodyReads).toEqual([]);
      expect(limiter.keys).toEqual([]);
    });

    it('413 when the body reader stops at the limit it was given, before the limiter', async () => {
      bodyReads.length = 0;
      const tooLarge = command({ readBody: (maxBytes) => (bodyReads.push(maxBytes), Promise.resolve({ kind: 'too_large' as const })) });
      const outcome = await refusal(useCase({ maxPayloadBytes: 777 }).execute(tooLarge));
      expect(outcome).toMatchObject({ code: 'payload_too_large', detail: 'the body exceeds 777 bytes' });
      expect(outcome.rateLimit).toBeUndefined();
      expect(bodyReads).toEqual([777]);
      expect(limiter.keys).toEqual([]);
    });

    it('413 when, with this routine, the body could make a run larger than the store takes; the largest body that fits is accepted', async () => {
      await real.append(
        Streams.routine(ROUTINE_ID),
        [
          stored('RoutineUpdated', {
            routineId: ROUTINE_ID,
            changes: { instructions: 'x'.repeat(40_000) },
            updatedAt: new Date(T0).toISOString(),
          }),
        ],
        0n,
      );
      await freshness.ensureFresh([Streams.routine(ROUTINE_ID)]);
      const maxEventBytes = 120_000;
      const fits = largestBodyThatFits(maxEventBytes, state.routineSnapshotBytes(ROUTINE_ID));
      expect(fits).toBeGreaterThan(20);
      const exact = useCase({ maxEventBytes, maxPayloadBytes: 1024 * 1024 });
      accepted(await exact.execute(command({ body: `"${'a'.repeat(fits - 2)}"` })));
      store.appends.length = 0;
      const outcome = await refusal(exact.execute(command({ body: `"${'a'.repeat(fits - 1)}"` })));
      expect(outcome.code).toBe('payload_too_large');
      expect(outcome.detail).toContain(`a body of ${fits + 1} bytes`);
      expect(limiter.keys).toEqual([WEBHOOK_ID]);
    });

    it('429 with the limiter state, keyed by the webhook', async () => {
      const denied: RateLimitState = { allowed: false, limit: 60, remaining: 0, resetSeconds: 12, windowSeconds: 60 };
      limiter.next = denied;
      const outcome = await refusal(useCase().execute(command({ body: 'not json' })));
      expect(outcome).toEqual({ kind: 'rejected', code: 'rate_limited', detail: 'too many requests for this webhook', rateLimit: denied });
      expect(limiter.keys).toEqual([WEBHOOK_ID]);
    });

    it.each([
      ['invalid_json', { body: '{"unterminated"' }],
      ['account_header_requires_text', { accountHeader: 'ops@example.com' }],
      ['account_not_found', { body: '{"account_email":"nobody@example.com"}' }],
      ['invalid_idempotency_key', { idempotencyKey: 'x'.repeat(300) }],
    ] as const)('400 %s carries the limiter state', async (code, overrides) => {
      const outcome = await refusal(useCase().execute(command(overrides)));
      expect(outcome).toMatchObject({ code, rateLimit: ALLOWED });
    });

    it('403 for a routine that runs autonomously with a tool that sends externally, saying why and what to do', async () => {
      await real.append(
        Streams.routine(ROUTINE_ID),
        [
          stored('RoutineUpdated', {
            routineId: ROUTINE_ID,
            changes: { mode: 'autonomous', tools: [{ name: 'email', sendsExternally: true }] },
            updatedAt: new Date(T0).toISOString(),
          }),
        ],
        0n,
      );
      const outcome = await refusal(useCase().execute(command()));
      expect(outcome).toMatchObject({ code: 'webhook_blocked', rateLimit: ALLOWED });
      expect(outcome.detail).toMatch(/runs autonomously and can send externally \(email\).* Switch the routine to supervised mode/);
    });
  });

  describe('idempotency', () => {
    const KEY = 'order-42';
    const keyed = (overrides: Partial<TriggerWebhookRequest> & { body?: string } = {}) => command({ idempotencyKey: KEY, ...overrides });
    const generation = (g: number) => deliveryIdForIdempotencyKey(WEBHOOK_ID, KEY, g);
    const indexStream = Streams.idempotencyKey(idempotencyIndexId(WEBHOOK_ID, KEY));

    it('a text request under the same key with another account header (same bytes) is 422', async () => {
      const text = (accountHeader: string | undefined) => keyed({ contentType: 'text/plain', accountHeader, body: 'disk full' });
      accepted(await useCase().execute(text('ops@example.com')));
      expect(await useCase().execute(text('other@example.com'))).toMatchObject({ code: 'idempotency_key_reused' });
      expect(await useCase().execute(text(undefined))).toMatchObject({ code: 'idempotency_key_reused' });
      expect(accepted(await useCase().execute(text('ops@example.com'))).replayed).toBe(true);
    });

    it('the first request under a key is generation 0; the same request again replays it (recorded as a replay), nothing appended twice', async () => {
      const first = accepted(await useCase().execute(keyed()));
      expect(first).toMatchObject({ replayed: false, body: { delivery_id: generation(0), run_id: runIdForDelivery(generation(0)) } });
      expect((await deliveryStream(generation(0)))[0].data).toMatchObject({ idempotencyKey: KEY });
      nowMs += RETENTION_MS - 1;
      const again = accepted(await useCase().execute(keyed()));
      expect(again).toMatchObject({ replayed: true, body: first.body });
      expect(replays).toEqual([generation(0)]);
      expect(await deliveryStream(generation(0))).toHaveLength(1);
      expect(await real.readStream(indexStream)).toEqual([]);
    });

    it.each([
      ['another body', { body: '{"alert":"cpu"}' }],
      ['the same bytes as another media type', { contentType: 'text/plain' }],
      ['the same bytes read as another value in another charset', { contentType: 'application/json; charset=iso-8859-1' }],
      ['a number that differs only past what a double holds', { body: '{"alert":"café","n":12345678901234567891}' }],
      ['one more member', { body: '{"alert":"café","n":12345678901234567890,"x":null}' }],
      ['a value one character longer', { body: '{"alert":"café ","n":12345678901234567890}' }],
    ] as const)('another request under the same key within retention (%s) is 422 and appends nothing', async (_, overrides) => {
      accepted(await useCase().execute(keyed({ body: '{"alert":"café","n":12345678901234567890}' })));
      store.appends.length = 0;
      const outcome = await useCase().execute(keyed(overrides));
      expect(outcome).toEqual({
        kind: 'rejected',
        code: 'idempotency_key_reused',
        detail: 'this idempotency key was used for a different request',
        rateLimit: ALLOWED,
      });
      expect(store.appends).toEqual([]);
    });

    it.each([
      ['members in another order, other whitespace', '{ "n" : 12345678901234567890,\n  "alert" : "café" }'],
      ['other escapes and number spellings', '{"alert":"caf\\u00e9","n":12345678901234567890.0e0}'],
      ['the same value in another charset (UTF-16)', { utf16: '{"alert":"café","n":12345678901234567890}' }],
    ] as const)(
      'the same JSON value written differently (%s) replays the first delivery: compared in RFC 8785 canonical form',
      async (_, second) => {
        const first = accepted(await useCase().execute(keyed({ body: '{"alert":"café","n":12345678901234567890}' })));
        store.appends.length = 0;
        const again =
          typeof second === 'string'
            ? keyed({ body: second })
            : keyed({
                contentType: 'application/json; charset=utf-16le',
                readBody: () => Promise.resolve({ kind: 'read', bytes: Buffer.from(second.utf16, 'utf16le') }),
              });
        expect(accepted(await useCase().execute(again))).toMatchObject({ replayed: true, body: first.body });
        expect(store.appends).toEqual([]);
        expect(((await deliveryStream(generation(0)))[0].data as { requestDigest: string }).requestDigest).toMatch(/^jcs:[0-9a-f]{64}$/);
      },
    );

    it('a text/plain body is still compared byte for byte: the same words with other whitespace are 422', async () => {
      const text = (body: string) => keyed({ contentType: 'text/plain', body });
      accepted(await useCase().execute(text('disk full on db-1')));
      expect(accepted(await useCase().execute(text('disk full on db-1'))).replayed).toBe(true);
      expect(await useCase().execute(text('disk  full on db-1'))).toMatchObject({ code: 'idempotency_key_reused' });
      expect(await useCase().execute(text('\ufeffdisk full on db-1'))).toMatchObject({ code: 'idempotency_key_reused' });
    });

    it('a delivery accepted before canonical comparison (its digest over the bytes) still replays to the same bytes, and nothing else', async () => {
      const body = '{"alert":"café","n":1}';
      const deliveryId = generation(0);
      const legacyDigest = bytesDigest({
        mediaType: 'application/json',
        charset: 'utf-8',
        accountHeader: undefined,
        bytes: Buffer.from(body),
      });
      expect(legacyDigest).toMatch(/^[0-9a-f]{64}$/);
      await real.append(
        Streams.delivery(deliveryId),
        [
          stored('DeliveryAccepted', {
            deliveryId,
            webhookId: WEBHOOK_ID,
            routineId: ROUTINE_ID,
            runId: runIdForDelivery(deliveryId),
            triggerAccount: { accountId: ACCOUNT_A, email: 'ops@example.com' },
            payload: { format: 'json', json: '{"alert":"café","n":1}' },
            contentType: 'application/json',
            idempotencyKey: KEY,
            requestDigest: legacyDigest,
            receivedAt: new Date(nowMs).toISOString(),
          }),
        ],
        'no_stream',
      );
      expect(accepted(await useCase().execute(keyed({ body })))).toMatchObject({ replayed: true, body: { delivery_id: deliveryId } });
      expect(await useCase().execute(keyed({ body: '{"alert":"café","n":2}' }))).toMatchObject({ code: 'idempotency_key_reused' });
      expect(await deliveryStream(deliveryId)).toHaveLength(1);
    });

    it('once retention has passed the key starts generation 1, recorded at revision 0 of its index; then generation 2 at revision 1', async () => {
      accepted(await useCase().execute(keyed()));
      nowMs += RETENTION_MS;
      const second = accepted(await useCase().execute(keyed({ body: '{"alert":"again"}' })));
      expect(second).toMatchObject({ replayed: false, body: { delivery_id: generation(1) } });
      nowMs += RETENTION_MS;
      const third = accepted(await useCase().execute(keyed()));
      expect(third.body.delivery_id).toBe(generation(2));
      const index = await real.readStream(indexStream);
      expect(index.map((recorded) => [recorded.type, recorded.revision, recorded.data])).toEqual([
        ['IdempotencyGenerationAdvanced', 0n, { webhookId: WEBHOOK_ID, generation: 1 }],
        ['IdempotencyGenerationAdvanced', 1n, { webhookId: WEBHOOK_ID, generation: 2 }],
      ]);
      expect(index[0].metadata).toMatchObject({ correlationId: indexStream, causationId: indexStream });
      // The newest generation is found from the index's head: no walk over the expired ones.
      nowMs += 1;
      const readsBefore = jest.spyOn(real, 'readStream');
      expect(accepted(await useCase().execute(keyed()))).toMatchObject({ replayed: true, body: third.body });
      expect(readsBefore.mock.calls.map(([streamId]) => streamId).filter((streamId) => streamId.startsWith('delivery-'))).toEqual([
        Streams.delivery(generation(2)),
      ]);
    });

    it('when the index moved after this request looked at it, the request goes on from the newest generation (never a second delivery in one window)', async () => {
      accepted(await useCase().execute(keyed()));
      // Other replicas advanced the key to generation 3 (their deliveries not appended yet, e.g. they crashed in between).
      await real.append(
        indexStream,
        [1, 2, 3].map((g) => stored('IdempotencyGenerationAdvanced', { webhookId: WEBHOOK_ID, generation: g })),
        'no_stream',
      );
      nowMs += RETENTION_MS;
      store.staleOnce.add(indexStream);
      const late = accepted(await useCase().execute(keyed()));
      expect(late).toMatchObject({ replayed: false, body: { delivery_id: generation(3) } });
      for (const skipped of [1, 2]) expect(await deliveryStream(generation(skipped))).toEqual([]);
      // The same request again, now seeing the head: the same delivery.
      expect(accepted(await useCase().execute(keyed()))).toMatchObject({ replayed: true, body: late.body });
    });

    it('requests whose parts differ only in where one ends and the next starts are different requests (422)', async () => {
      const text = (accountHeader: string, body: string) => keyed({ contentType: 'text/plain', accountHeader, body });
      accepted(await useCase().execute(text('ops@example.com', 'disk')));
      expect(await useCase().execute(text('ops@example.co', 'mdisk'))).toMatchObject({ code: 'idempotency_key_reused' });
    });

    it('eight identical keyed requests at once: one appends, seven replay the same delivery', async () => {
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => useCase().execute(keyed())));
      const deliveries = outcomes.map((outcome) => accepted(outcome));
      expect(deliveries.filter((outcome) => !outcome.replayed)).toHaveLength(1);
      expect(new Set(deliveries.map((outcome) => outcome.body.delivery_id))).toEqual(new Set([generation(0)]));
      expect(await deliveryStream(generation(0))).toHaveLength(1);
    });

    it('requests racing past retention agree on one next generation', async () => {
      accepted(await useCase().execute(keyed()));
      nowMs += RETENTION_MS;
      const outcomes = (await Promise.all(Array.from({ length: 4 }, () => useCase().execute(keyed())))).map((outcome) => accepted(outcome));
      expect(new Set(outcomes.map((outcome) => outcome.body.delivery_id))).toEqual(new Set([generation(1)]));
      expect(outcomes.filter((outcome) => !outcome.replayed)).toHaveLength(1);
      expect((await real.readStream(indexStream)).map((recorded) => recorded.revision)).toEqual([0n]);
    });
  });

  describe('when the append fails', () => {
    it('sent but not confirmed (store unavailable) is "outcome unknown" naming the delivery, never "nothing accepted"', async () => {
      store.appendFault = () => Promise.reject(new EventStoreUnavailableError('deadline exceeded'));
      const error: unknown = await useCase()
        .execute(command())
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AppendOutcomeUnknownError);
      expect((error as AppendOutcomeUnknownError).deliveryId).toMatch(/^dlv_/);
      expect((error as AppendOutcomeUnknownError).cause).toBeInstanceOf(EventStoreUnavailableError);
    });

    it('refused as too large by the store is a 413, not a failure', async () => {
      store.appendFault = () => Promise.reject(new InvalidAppendError('event too large'));
      expect(await useCase().execute(command())).toMatchObject({
        kind: 'rejected',
        code: 'payload_too_large',
        detail: 'the body makes an event larger than the event store accepts',
      });
    });

    it('any other error passes through unchanged', async () => {
      const boom = new TypeError('boom');
      store.appendFault = () => Promise.reject(boom);
      await expect(useCase().execute(command())).rejects.toBe(boom);
    });

    it("a conflict on a fresh random delivery id is an error, never a replay of somebody else's delivery", async () => {
      store.appendFault = () =>
        Promise.resolve<AppendResult>({ kind: 'conflict', streamId: 'delivery-x', expected: 'no_stream', actualRevision: 0n });
      await expect(useCase().execute(command())).rejects.toThrow(/collided/);
    });
  });
});
