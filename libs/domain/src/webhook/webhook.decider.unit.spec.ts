import type { TriggerAccount, WebhookEvent } from '@wts/contracts';
import { ACCOUNT_A, ACCOUNT_B, ROUTINE_ID, T0, T1, WEBHOOK_ID, specFor } from '@wts/testing';
import type { SafetyVerdict } from '../safety/safety.policy';
import {
  initialWebhookState,
  webhookDecider,
  type ConfiguredWebhook,
  type WebhookCommand,
  type WebhookCredential,
  type WebhookState,
} from './webhook.decider';

const OTHER_WEBHOOK_ID = 'whk_BBBBBBBBBBBBBBBBBBBBBB';
const T2 = '2024-05-01T12:10:00.000Z';
const DIGEST_1 = 'a'.repeat(64);
const DIGEST_2 = 'b'.repeat(64);
const DEFAULT_ACCOUNT: TriggerAccount = { accountId: ACCOUNT_A, email: 'ops@example.com' };
const OTHER_ACCOUNT: TriggerAccount = { accountId: ACCOUNT_B, email: 'alias@example.com' };

const SAFE: SafetyVerdict = { blocked: false };
const UNSAFE_REASON = 'autonomous external sending with untrusted input';
const UNSAFE: SafetyVerdict = {
  blocked: true,
  reason: UNSAFE_REASON,
  remedy: 'switch to supervised mode',
};

const spec = specFor(webhookDecider);

const bearer = (secretDigest: string): WebhookCredential => ({ scheme: 'bearer', secretDigest });
const SECRET_ID_1 = 'sgs_AAAAAAAAAAAAAAAAAAAAAA';
const SECRET_ID_2 = 'sgs_BBBBBBBBBBBBBBBBBBBBBB';

function enable(
  overrides: Partial<Extract<WebhookCommand, { type: 'EnableWebhook' }>> & { readonly secretDigest?: string } = {},
): WebhookCommand {
  const { secretDigest = DIGEST_1, ...rest } = overrides;
  return {
    type: 'EnableWebhook',
    webhookId: WEBHOOK_ID,
    routineId: ROUTINE_ID,
    credential: bearer(secretDigest),
    defaultAccount: DEFAULT_ACCOUNT,
    accountOverrideAllowed: false,
    safety: SAFE,
    now: T0,
    ...rest,
  };
}

const enabled = (overrides: Partial<Extract<WebhookEvent, { type: 'WebhookEnabled' }>['data']> = {}): WebhookEvent => ({
  type: 'WebhookEnabled',
  data: {
    webhookId: WEBHOOK_ID,
    routineId: ROUTINE_ID,
    secretDigest: DIGEST_1,
    defaultAccount: DEFAULT_ACCOUNT,
    accountOverrideAllowed: false,
    enabledAt: T0,
    ...overrides,
  },
});
const rotated = (secretDigest = DIGEST_2, rotatedAt = T1): WebhookEvent => ({
  type: 'SecretRotated',
  data: { webhookId: WEBHOOK_ID, secretDigest, rotatedAt },
});
const disabled = (disabledAt = T1): WebhookEvent => ({ type: 'WebhookDisabled', data: { webhookId: WEBHOOK_ID, disabledAt } });
const blocked = (blockedAt = T0, reason = UNSAFE_REASON): WebhookEvent => ({
  type: 'WebhookBlocked',
  data: { webhookId: WEBHOOK_ID, reason, blockedAt },
});
const unblocked = (unblockedAt: string): WebhookEvent => ({ type: 'WebhookUnblocked', data: { webhookId: WEBHOOK_ID, unblockedAt } });

/** The state after enabled() (and disabled(), for status 'disabled'): what the case changes is passed in. */
const configured = (status: ConfiguredWebhook['status'], overrides: Partial<ConfiguredWebhook> = {}): ConfiguredWebhook => ({
  status,
  webhookId: WEBHOOK_ID,
  routineId: ROUTINE_ID,
  scheme: 'bearer',
  secretDigest: DIGEST_1,
  signingSecretId: null,
  defaultAccount: DEFAULT_ACCOUNT,
  accountOverrideAllowed: false,
  blocked: false,
  blockedReason: null,
  hold: null,
  ...overrides,
});

function fold(events: readonly WebhookEvent[]): WebhookState {
  return events.reduce(webhookDecider.evolve, webhookDecider.initialState());
}

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

  describe('signed schemes', () => {
    const signed = (scheme: 'github' | 'stripe' | 'standard_webhooks', secretId: string): WebhookCredential => ({ scheme, secretId });

    it('given no webhook, when enabled with github verification, then WebhookEnabled names the scheme and the sealed secret, with no digest', () => {
      spec
        .given([])
        .when(enable({ credential: signed('github', SECRET_ID_1) }))
        .then([
          {
            type: 'WebhookEnabled',
            data: {
              webhookId: WEBHOOK_ID,
              routineId: ROUTINE_ID,
              verification: { scheme: 'github', secretId: SECRET_ID_1 },
              defaultAccount: DEFAULT_ACCOUNT,
              accountOverrideAllowed: false,
              enabledAt: T0,
            },
          },
        ]);
    });

    it('given a signed webhook folded, then the state has its scheme and secret id and no digest', () => {
      const state = fold([enabled({ secretDigest: undefined, verification: { scheme: 'stripe', secretId: SECRET_ID_1 } })]);
      expect(state).toEqual(configured('enabled', { scheme: 'stripe', secretDigest: null, signingSecretId: SECRET_ID_1 }));
    });

    it('when a signed scheme is enabled with account override allowed, then it is rejected (a signed delivery runs for the default account)', () => {
      spec
        .given([])
        .when(enable({ credential: signed('standard_webhooks', SECRET_ID_1), accountOverrideAllowed: true }))
        .thenRejects('validation_failed');
    });

    it('given a signed webhook, when rotated with a new secret of the same scheme, then SecretRotated names the new secret', () => {
      spec
        .given([enabled({ secretDigest: undefined, verification: { scheme: 'github', secretId: SECRET_ID_1 } })])
        .when({ type: 'RotateSecret', credential: signed('github', SECRET_ID_2), now: T1 })
        .then([
          {
            type: 'SecretRotated',
            data: { webhookId: WEBHOOK_ID, verification: { scheme: 'github', secretId: SECRET_ID_2 }, rotatedAt: T1 },
          },
        ]);
    });

    it('given a signed webhook rotated, then the state names only the new secret', () => {
      const state = fold([
        enabled({ secretDigest: undefined, verification: { scheme: 'github', secretId: SECRET_ID_1 } }),
        {
          type: 'SecretRotated',
          data: { webhookId: WEBHOOK_ID, verification: { scheme: 'github', secretId: SECRET_ID_2 }, rotatedAt: T1 },
        },
      ]);
      expect(state).toMatchObject({ scheme: 'github', signingSecretId: SECRET_ID_2, secretDigest: null });
    });

    it('given a bearer webhook, when rotated with a signed credential, then it is rejected (rotate keeps the scheme)', () => {
      spec
        .given([enabled()])
        .when({ type: 'RotateSecret', credential: signed('stripe', SECRET_ID_2), now: T1 })
        .thenRejects('validation_failed');
    });

    it('given a signed webhook disabled, when re-enabled as bearer, then the state is bearer with the digest and no secret id', () => {
      const state = fold([
        enabled({ secretDigest: undefined, verification: { scheme: 'github', secretId: SECRET_ID_1 } }),
        disabled(),
        enabled({ secretDigest: DIGEST_2, enabledAt: T2 }),
      ]);
      expect(state).toEqual(configured('enabled', { secretDigest: DIGEST_2 }));
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
      spec
        .given([enabled()])
        .when(hold({ releaseAt: T1 }))
        .thenRejects('validation_failed');
      spec
        .given([enabled()])
        .when(hold({ releaseAt: T0 }))
        .thenRejects('validation_failed');
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
      expect(fold([enabled(), held(), released()])).toEqual(configured('enabled'));
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
      expect(fold([enabled(), held(), released()])).toEqual(configured('enabled'));
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
