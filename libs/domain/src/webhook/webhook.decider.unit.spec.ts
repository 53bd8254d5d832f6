import type { TriggerAccount, WebhookEvent } from '@wts/contracts';
import { ACCOUNT_B, T0, T1, WEBHOOK_ID } from '@wts/testing';
import type { SafetyVerdict } from '../safety/safety.policy';
import { initialWebhookState, webhookDecider } from './webhook.decider';
import { DIGEST_2, SAFE, T2, bearer, configured, disabled, enable, enabled, fold, spec } from './testing/webhook.decider.fixtures';

const OTHER_WEBHOOK_ID = 'whk_BBBBBBBBBBBBBBBBBBBBBB';
const OTHER_ACCOUNT: TriggerAccount = { accountId: ACCOUNT_B, email: 'alias@example.com' };
const UNSAFE_REASON = 'autonomous external sending with untrusted input';
const UNSAFE: SafetyVerdict = {
  blocked: true,
  reason: UNSAFE_REASON,
  remedy: 'switch to supervised mode',
};

const rotated = (secretDigest = DIGEST_2, rotatedAt = T1): WebhookEvent => ({
  type: 'SecretRotated',
  data: { webhookId: WEBHOOK_ID, secretDigest, rotatedAt },
});
const blocked = (blockedAt = T0, reason = UNSAFE_REASON): WebhookEvent => ({
  type: 'WebhookBlocked',
  data: { webhookId: WEBHOOK_ID, reason, blockedAt },
});
const unblocked = (unblockedAt: string): WebhookEvent => ({
  type: 'WebhookUnblocked',
  data: { webhookId: WEBHOOK_ID, unblockedAt },
});

describe('webhookDecider', () => {
  describe('initial state', () => {
    it('is not configured', () => {
      expect(initialWebhookState()).toEqual({ status: 'not_configured' });
      expect(webhookDecider.initialState()).toEqual({ status: 'not_configured' });
    });
  });

  describe('EnableWebhook', () => {
    it('given no webhook, when enabled with a safe routine, then WebhookEnabled carries id, routine, digest, default account, override and time', () => {
      spec
        .given([])
        .when(enable({ accountOverrideAllowed: true }))
        .then([enabled({ accountOverrideAllowed: true })]);
    });

    it('given no webhook, when enabled, then the state is enabled and not blocked', () => {
      expect(fold([enabled()])).toEqual(configured('enabled'));
    });

    it('given no webhook, when enabled for an unsafe routine, then the webhook is enabled and blocked in the same decision', () => {
      spec
        .given([])
        .when(enable({ safety: UNSAFE }))
        .then([enabled(), blocked(T0)]);
    });

    it('given an enabled and blocked webhook folded, then the state records the block and its reason', () => {
      const state = fold([enabled(), blocked(T0)]);
      expect(state).toMatchObject({ status: 'enabled', blocked: true, blockedReason: UNSAFE_REASON });
    });

    it('given an enabled webhook, when enabled again, then it is rejected as already enabled', () => {
      spec
        .given([enabled()])
        .when(enable({ now: T1 }))
        .thenRejects('webhook_already_enabled');
    });

    it('given an enabled webhook whose secret was rotated, when enabled again, then it is still rejected', () => {
      spec
        .given([enabled(), rotated()])
        .when(enable({ now: T2 }))
        .thenRejects('webhook_already_enabled');
    });

    it('given a disabled webhook, when re-enabled with the same id, then WebhookEnabled keeps the id (stable URL) with the new secret digest', () => {
      spec
        .given([enabled(), disabled()])
        .when(enable({ secretDigest: DIGEST_2, defaultAccount: OTHER_ACCOUNT, accountOverrideAllowed: true, now: T2 }))
        .then([enabled({ secretDigest: DIGEST_2, defaultAccount: OTHER_ACCOUNT, accountOverrideAllowed: true, enabledAt: T2 })]);
    });

    it('given a disabled webhook, when re-enabled, then the state is enabled with the same id and the new settings', () => {
      const state = fold([
        enabled(),
        disabled(),
        enabled({ secretDigest: DIGEST_2, defaultAccount: OTHER_ACCOUNT, accountOverrideAllowed: true, enabledAt: T2 }),
      ]);
      expect(state).toEqual(configured('enabled', { secretDigest: DIGEST_2, defaultAccount: OTHER_ACCOUNT, accountOverrideAllowed: true }));
    });

    it('given a disabled webhook, when re-enabled with another id, then it is rejected (the URL must stay stable)', () => {
      spec
        .given([enabled(), disabled()])
        .when(enable({ webhookId: OTHER_WEBHOOK_ID, now: T2 }))
        .thenRejects('validation_failed');
    });

    it('given a disabled, blocked webhook, when re-enabled while the routine is now safe, then it is enabled and unblocked', () => {
      spec
        .given([enabled(), blocked(T0), disabled()])
        .when(enable({ secretDigest: DIGEST_2, now: T2 }))
        .then([enabled({ secretDigest: DIGEST_2, enabledAt: T2 }), unblocked(T2)]);
    });

    it('given a disabled, blocked webhook, when re-enabled while still unsafe, then it is enabled with no second block event', () => {
      spec
        .given([enabled(), blocked(T0), disabled()])
        .when(enable({ secretDigest: DIGEST_2, safety: UNSAFE, now: T2 }))
        .then([enabled({ secretDigest: DIGEST_2, enabledAt: T2 })]);
    });

    it('given a disabled, blocked webhook re-enabled while still unsafe, then the folded state stays blocked', () => {
      const state = fold([enabled(), blocked(T0), disabled(), enabled({ secretDigest: DIGEST_2, enabledAt: T2 })]);
      expect(state).toMatchObject({ status: 'enabled', blocked: true });
    });

    it('given a disabled, unblocked webhook, when re-enabled while the routine became unsafe, then it is enabled and blocked', () => {
      spec
        .given([enabled(), disabled()])
        .when(enable({ safety: UNSAFE, now: T2 }))
        .then([enabled({ enabledAt: T2 }), blocked(T2)]);
    });
  });

  describe('RotateSecret', () => {
    it('given an enabled webhook, when the secret is rotated, then SecretRotated carries the new digest', () => {
      spec
        .given([enabled()])
        .when({ type: 'RotateSecret', credential: bearer(DIGEST_2), now: T1 })
        .then([rotated(DIGEST_2, T1)]);
    });

    it('given a rotated secret folded, then the state holds only the new digest', () => {
      expect(fold([enabled(), rotated(DIGEST_2, T1)])).toMatchObject({ status: 'enabled', secretDigest: DIGEST_2 });
    });

    it('given an enabled, blocked webhook, when the secret is rotated, then rotation is allowed', () => {
      spec
        .given([enabled(), blocked(T0)])
        .when({ type: 'RotateSecret', credential: bearer(DIGEST_2), now: T1 })
        .then([rotated(DIGEST_2, T1)]);
    });

    it('given no webhook, when the secret is rotated, then it is rejected as not enabled', () => {
      spec
        .given([])
        .when({ type: 'RotateSecret', credential: bearer(DIGEST_2), now: T1 })
        .thenRejects('webhook_not_enabled');
    });

    it('given a disabled webhook, when the secret is rotated, then it is rejected as not enabled', () => {
      spec
        .given([enabled(), disabled()])
        .when({ type: 'RotateSecret', credential: bearer(DIGEST_2), now: T2 })
        .thenRejects('webhook_not_enabled');
    });
  });

  describe('DisableWebhook', () => {
    it('given an enabled webhook, when disabled, then WebhookDisabled', () => {
      spec
        .given([enabled()])
        .when({ type: 'DisableWebhook', now: T1 })
        .then([disabled(T1)]);
    });

    it('given a disabled webhook folded, then the state is disabled and keeps id, digest and settings', () => {
      expect(fold([enabled(), disabled()])).toEqual(configured('disabled'));
    });

    it('given a disabled webhook, when disabled again, then nothing happens (idempotent)', () => {
      spec.given([enabled(), disabled()]).when({ type: 'DisableWebhook', now: T2 }).then([]);
    });

    it('given no webhook, when disabled, then it is rejected as not configured', () => {
      spec.given([]).when({ type: 'DisableWebhook', now: T1 }).thenRejects('webhook_not_configured');
    });
  });

  describe('ReassessSafety', () => {
    it('given no webhook, when safety is reassessed as unsafe, then nothing happens', () => {
      spec.given([]).when({ type: 'ReassessSafety', safety: UNSAFE, now: T1 }).then([]);
    });

    it('given an enabled, unblocked webhook, when the routine becomes unsafe, then WebhookBlocked with the reason', () => {
      spec
        .given([enabled()])
        .when({ type: 'ReassessSafety', safety: UNSAFE, now: T1 })
        .then([blocked(T1)]);
    });

    it('given an enabled, blocked webhook, when the routine is made safer, then WebhookUnblocked', () => {
      spec
        .given([enabled(), blocked(T0)])
        .when({ type: 'ReassessSafety', safety: SAFE, now: T1 })
        .then([unblocked(T1)]);
    });

    it('given an unblock folded, then the state is unblocked with no reason', () => {
      expect(fold([enabled(), blocked(T0), unblocked(T1)])).toMatchObject({ blocked: false, blockedReason: null });
    });

    it('given an enabled, blocked webhook, when still unsafe, then nothing happens', () => {
      spec
        .given([enabled(), blocked(T0)])
        .when({ type: 'ReassessSafety', safety: UNSAFE, now: T1 })
        .then([]);
    });

    it('given an enabled, unblocked webhook, when still safe, then nothing happens', () => {
      spec.given([enabled()]).when({ type: 'ReassessSafety', safety: SAFE, now: T1 }).then([]);
    });

    it('given a disabled webhook, when the routine becomes unsafe, then it is blocked too (the block outlives disable)', () => {
      spec
        .given([enabled(), disabled()])
        .when({ type: 'ReassessSafety', safety: UNSAFE, now: T2 })
        .then([blocked(T2)]);
    });

    it('given a disabled, blocked webhook, when the routine is made safer, then it is unblocked', () => {
      spec
        .given([enabled(), blocked(T0), disabled()])
        .when({ type: 'ReassessSafety', safety: SAFE, now: T2 })
        .then([unblocked(T2)]);
    });
  });

  describe('evolve', () => {
    it.each<WebhookEvent>([rotated(), disabled(), blocked(), unblocked(T1)])(
      'given no webhook, a stray $type leaves the state not configured',
      (event) => {
        expect(webhookDecider.evolve(initialWebhookState(), event)).toEqual({ status: 'not_configured' });
      },
    );
  });
});
