import type { WebhookEvent } from '@wts/contracts';
import { T1, WEBHOOK_ID } from '@wts/testing';
import type { WebhookCommand } from './webhook.decider';
import { T2, configured, disabled, enable, enabled, fold, spec } from './testing/webhook.decider.fixtures';

describe('webhookDecider', () => {
  describe('ChangeRetention', () => {
    const change = (payloadRetentionDays: number | null, now = T1): WebhookCommand => ({
      type: 'ChangeRetention',
      payloadRetentionDays,
      now,
    });
    const changed = (payloadRetentionDays: number | null, changedAt = T1): WebhookEvent => ({
      type: 'WebhookRetentionChanged',
      data: { webhookId: WEBHOOK_ID, payloadRetentionDays, changedAt },
    });

    it('given an enabled webhook on the default, when a retention is set, then WebhookRetentionChanged carries the days and time', () => {
      spec
        .given([enabled()])
        .when(change(30))
        .then([changed(30)]);
    });

    it('given a webhook with its own retention, when set back to the default, then the event carries null', () => {
      spec
        .given([enabled({ payloadRetentionDays: 7 })])
        .when(change(null, T2))
        .then([changed(null, T2)]);
    });

    it('given a disabled webhook, when a retention is set, then it is recorded (kept for its next deliveries)', () => {
      spec
        .given([enabled(), disabled()])
        .when(change(90, T2))
        .then([changed(90, T2)]);
    });

    it('given the same retention, when set again, then nothing is recorded (the default too)', () => {
      spec
        .given([enabled({ payloadRetentionDays: 30 })])
        .when(change(30))
        .then([]);
      spec
        .given([enabled(), changed(30), changed(null, T2)])
        .when(change(null))
        .then([]);
      spec.given([enabled()]).when(change(null)).then([]);
    });

    it('given no webhook, when a retention is set, then it is refused as the other commands are', () => {
      spec.given([]).when(change(30)).thenRejects('webhook_not_configured');
    });

    it('refuses days outside 1–3650 or not whole, and enable refuses them too', () => {
      for (const days of [0, -1, 3651, 1.5, Number.NaN]) {
        spec.given([enabled()]).when(change(days)).thenRejects('validation_failed');
        spec
          .given([])
          .when(enable({ payloadRetentionDays: days }))
          .thenRejects('validation_failed');
      }
      spec
        .given([enabled()])
        .when(change(1))
        .then([changed(1)]);
      spec
        .given([enabled()])
        .when(change(3650))
        .then([changed(3650)]);
    });

    it('evolves: the retention follows the latest change, and a re-enable sets it from its own body', () => {
      expect(fold([enabled(), changed(30)])).toEqual(configured('enabled', { payloadRetentionDays: 30 }));
      expect(fold([enabled({ payloadRetentionDays: 7 }), changed(null)])).toEqual(configured('enabled'));
      expect(fold([enabled(), changed(30), disabled()])).toEqual(configured('disabled', { payloadRetentionDays: 30 }));
      expect(fold([enabled(), changed(30), disabled(), enabled({ payloadRetentionDays: 5 })])).toEqual(
        configured('enabled', { payloadRetentionDays: 5 }),
      );
      expect(fold([changed(30)])).toEqual({ status: 'not_configured' });
    });
  });
});
