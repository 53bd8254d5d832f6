import type { WebhookEvent } from '@wts/contracts';
import { T0, T1, WEBHOOK_ID } from '@wts/testing';
import type { WebhookCommand } from './webhook.decider';
import { DIGEST_2, T2, configured, disabled, enabled, fold, spec } from './testing/webhook.decider.fixtures';

describe('webhookDecider', () => {
  describe('HoldWebhook and ReleaseWebhook', () => {
    const hold = (overrides: Partial<Extract<WebhookCommand, { type: 'HoldWebhook' }>> = {}): WebhookCommand => ({
      type: 'HoldWebhook',
      heldBy: 'ada@example.com',
      releaseAt: null,
      now: T1,
      ...overrides,
    });
    const release = (overrides: Partial<Extract<WebhookCommand, { type: 'ReleaseWebhook' }>> = {}): WebhookCommand => ({
      type: 'ReleaseWebhook',
      releasedBy: 'ada@example.com',
      expired: false,
      now: T2,
      ...overrides,
    });
    const held = (heldAt = T1, releaseAt: string | null = null, heldBy = 'ada@example.com'): WebhookEvent => ({
      type: 'WebhookHeld',
      data: { webhookId: WEBHOOK_ID, heldAt, heldBy, releaseAt },
    });
    const released = (releasedAt = T2, expired = false, releasedBy = 'ada@example.com'): WebhookEvent => ({
      type: 'WebhookReleased',
      data: { webhookId: WEBHOOK_ID, releasedAt, releasedBy, expired, discard: false },
    });

    it('given an enabled webhook, when held, then WebhookHeld names who and when, without expiry', () => {
      spec.given([enabled()]).when(hold()).then([held()]);
    });

    it('given an enabled webhook, when held until a later time, then WebhookHeld carries the expiry', () => {
      spec
        .given([enabled()])
        .when(hold({ releaseAt: T2 }))
        .then([held(T1, T2)]);
    });

    it('given an enabled webhook, when held with an expiry that is not later than now, then it is refused', () => {
      for (const releaseAt of [T1, T0]) spec.given([enabled()]).when(hold({ releaseAt })).thenRejects('validation_failed');
    });

    it('given no webhook or a disabled one, when held, then it is refused', () => {
      spec.given([]).when(hold()).thenRejects('webhook_not_configured');
      spec.given([enabled(), disabled()]).when(hold()).thenRejects('webhook_not_enabled');
    });

    it('given a held webhook, when held again with the same expiry, then nothing is recorded; with another, the expiry changes', () => {
      spec.given([enabled(), held()]).when(hold()).then([]);
      spec
        .given([enabled(), held()])
        .when(hold({ now: T2, releaseAt: '2024-05-01T13:00:00.000Z' }))
        .then([held(T2, '2024-05-01T13:00:00.000Z')]);
    });

    it('given held, then held again with an expiry, the state keeps when and by whom it was first held', () => {
      expect(fold([enabled(), held(T1, null, 'ada'), held(T2, '2024-05-01T13:00:00.000Z', 'bob')])).toEqual(
        configured('enabled', { hold: { since: T1, by: 'ada', releaseAt: '2024-05-01T13:00:00.000Z' } }),
      );
    });

    it('given a held webhook, when released, then WebhookReleased; the state is no longer held', () => {
      spec.given([enabled(), held()]).when(release()).then([released()]);
      expect(fold([enabled(), held(), released()])).toEqual(configured('enabled', { lastRelease: 'run' }));
    });

    it('given a held webhook, when released with discard and the count the operator saw, then WebhookReleased records both', () => {
      spec
        .given([enabled(), held()])
        .when(release({ discard: true, heldDeliveries: 7 }))
        .then([
          {
            type: 'WebhookReleased',
            data: {
              webhookId: WEBHOOK_ID,
              releasedAt: T2,
              releasedBy: 'ada@example.com',
              expired: false,
              discard: true,
              heldDeliveries: 7,
            },
          },
        ]);
      const discarded: WebhookEvent = {
        type: 'WebhookReleased',
        data: { webhookId: WEBHOOK_ID, releasedAt: T2, releasedBy: 'ada@example.com', expired: false, discard: true },
      };
      expect(fold([enabled(), held(), discarded])).toEqual(configured('enabled', { lastRelease: 'discard' }));
    });

    it('given a discarded hold, when held again, then the state still says the latest release discarded; released, that it ran; kept through disable and enable', () => {
      const discarded: WebhookEvent = {
        type: 'WebhookReleased',
        data: { webhookId: WEBHOOK_ID, releasedAt: T2, releasedBy: 'ada@example.com', expired: false, discard: true },
      };
      const heldAgain = fold([enabled(), held(), discarded, held(T2)]);
      expect(heldAgain.status === 'enabled' && heldAgain.lastRelease).toBe('discard');
      const ran = fold([
        enabled(),
        held(),
        discarded,
        held(T2),
        released(T2),
        disabled(),
        enabled({ secretDigest: DIGEST_2, enabledAt: T2 }),
      ]);
      expect(ran.status === 'enabled' && ran.lastRelease).toBe('run');
      // An event written before discard existed releases to run.
      const legacy: WebhookEvent = {
        type: 'WebhookReleased',
        data: { webhookId: WEBHOOK_ID, releasedAt: T2, releasedBy: 'ada@example.com', expired: false },
      };
      expect(fold([enabled(), held(), legacy])).toEqual(configured('enabled', { lastRelease: 'run' }));
    });

    it('given a webhook no longer held, or held by another hold than the one looked at, when discarded, then it is refused (nothing discarded)', () => {
      spec
        .given([enabled()])
        .when(release({ discard: true }))
        .thenRejects('webhook_not_held');
      spec
        .given([enabled(), held(), released()])
        .when(release({ discard: true, heldSince: T1 }))
        .thenRejects('webhook_not_held');
      spec
        .given([enabled(), held(), released(), held(T2)])
        .when(release({ discard: true, heldSince: T1, now: '2024-05-01T13:00:00.000Z' }))
        .thenRejects('hold_changed');
      spec
        .given([enabled(), held(T2)])
        .when(release({ discard: true, heldSince: T2, now: '2024-05-01T13:00:00.000Z' }))
        .then([
          {
            type: 'WebhookReleased',
            data: {
              webhookId: WEBHOOK_ID,
              releasedAt: '2024-05-01T13:00:00.000Z',
              releasedBy: 'ada@example.com',
              expired: false,
              discard: true,
            },
          },
        ]);
    });

    it('given a held webhook, when the service would release it by expiry with discard, then it is refused', () => {
      spec
        .given([enabled(), held(T1, T2)])
        .when(release({ expired: true, discard: true }))
        .thenRejects('validation_failed');
    });

    it('given a webhook that is not held, when released, then nothing is recorded (a repeated release is harmless)', () => {
      spec.given([enabled()]).when(release()).then([]);
      spec.given([enabled(), held(), released()]).when(release()).then([]);
      spec.given([]).when(release()).thenRejects('webhook_not_configured');
    });

    it('given a hold that expires at T2, when the service releases it at T2, then WebhookReleased says expired', () => {
      spec
        .given([enabled(), held(T1, T2)])
        .when(release({ expired: true, releasedBy: 'service' }))
        .then([released(T2, true, 'service')]);
    });

    it('given a hold without expiry or not yet expired, when the service releases it, then nothing happens', () => {
      spec
        .given([enabled(), held()])
        .when(release({ expired: true }))
        .then([]);
      spec
        .given([enabled(), held(T1, '2024-05-01T13:00:00.000Z')])
        .when(release({ expired: true }))
        .then([]);
    });

    it('given a held webhook, when disabled and enabled again, then it is still held (its deliveries still wait)', () => {
      const state = fold([enabled(), held(), disabled(), enabled({ secretDigest: DIGEST_2, enabledAt: T2 })]);
      expect(state.status === 'enabled' && state.hold).toEqual({ since: T1, by: 'ada@example.com', releaseAt: null });
      spec.given([enabled(), held(), disabled()]).when(release()).then([released()]);
    });

    it('given no webhook, WebhookHeld and WebhookReleased change nothing', () => {
      expect(fold([held(), released()])).toEqual({ status: 'not_configured' });
    });
  });
});
