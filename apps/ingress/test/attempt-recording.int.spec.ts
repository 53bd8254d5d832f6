import {
  ConfigurationFeeder,
  ConfigurationState,
  TriggerWebhookUseCase,
  UNKNOWN_WEBHOOK_ATTEMPTS,
  UseCaseContext,
  cryptoRandom,
  systemClock,
  type RejectedAttempt,
  type TriggerWebhookRequest,
  type WebhookActivityRecorder,
} from '@wts/application';
import { MemoryRateLimiter } from '@wts/platform';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';

/**
 * A refused attempt is recorded after the answer, on every 404 path alike: the use case hands back
 * its outcome (which the route sends in the same turn) before anything is recorded — a known id
 * with a wrong secret does no more before answering than an unknown id.
 */
describe('refused attempts are recorded after the answer', () => {
  const t = useIngressTestApp();
  let hook: WebhookFixture;
  const recorded: RejectedAttempt[] = [];
  const recorder: WebhookActivityRecorder = {
    recordAttempt: (attempt) => recorded.push(attempt),
    recordReplay: () => undefined,
    recordDelivery: () => undefined,
  };
  let useCase: TriggerWebhookUseCase;

  beforeAll(async () => {
    hook = await t.setupWebhook();
    // The app's own configuration state and freshness; only the recorder is the test's.
    const context = new UseCaseContext(t.store, t.app.get(ConfigurationState), systemClock, cryptoRandom, t.app.get(ConfigurationFeeder));
    useCase = new TriggerWebhookUseCase({
      context,
      rateLimiter: new MemoryRateLimiter(1000),
      activity: recorder,
      limits: {
        maxPayloadBytes: 1024,
        idempotencyRetentionMs: 60_000,
        maxEventBytes: 1024 * 1024,
        signatureToleranceSeconds: 300,
        payloadRetentionSeconds: 86_400,
      },
    });
  });

  const command = (webhookId: string, authorization: string): TriggerWebhookRequest => ({
    webhookId,
    authorization,
    contentType: 'application/json',
    accountHeader: undefined,
    idempotencyKey: undefined,
    traceparent: undefined,
    sourceAddress: '192.0.2.1',
    readBody: () => Promise.resolve({ kind: 'read', bytes: Buffer.from('{}') }),
  });
  const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('wrong secret: the 404 outcome comes back before the attempt is recorded; the recording follows', async () => {
    recorded.length = 0;
    const outcome = await useCase.execute(command(hook.webhookId, 'Bearer whsec_wrong'));
    expect(outcome).toMatchObject({ kind: 'rejected', code: 'webhook_not_found' });
    expect(recorded).toEqual([]);
    await nextTurn();
    expect(recorded).toEqual([expect.objectContaining({ webhookId: hook.webhookId, reason: 'wrong_secret', sourceAddress: '192.0.2.1' })]);
  });

  it('a refusal after authentication (415) is recorded after the answer too', async () => {
    recorded.length = 0;
    const outcome = await useCase.execute({ ...command(hook.webhookId, `Bearer ${hook.secret}`), contentType: 'application/xml' });
    expect(outcome).toMatchObject({ kind: 'rejected', code: 'unsupported_media_type' });
    expect(recorded).toEqual([]);
    await nextTurn();
    expect(recorded).toEqual([expect.objectContaining({ webhookId: hook.webhookId, reason: 'unsupported_media_type' })]);
  });

  it('unknown id: the same 404, recorded the same way after the answer — under the unknown-id bucket, which no listing shows', async () => {
    recorded.length = 0;
    const outcome = await useCase.execute(command('whk_AAAAAAAAAAAAAAAAAAAAAA', 'Bearer whsec_wrong'));
    expect(outcome).toMatchObject({ kind: 'rejected', code: 'webhook_not_found' });
    expect(recorded).toEqual([]);
    await nextTurn();
    expect(recorded).toEqual([
      { webhookId: UNKNOWN_WEBHOOK_ATTEMPTS, reason: 'wrong_secret', at: expect.any(String) as unknown, sourceAddress: '192.0.2.1' },
    ]);
    // The owner of a real webhook never sees it.
    expect(
      ((await t.adminOk('GET', `/admin/routines/${hook.routineId}/webhook/attempts`, undefined, 200)).attempts as unknown[]).some((a) =>
        JSON.stringify(a).includes('whk_unknown'),
      ),
    ).toBe(false);
  });
});
