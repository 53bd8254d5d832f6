import { ROUTINE_ID, T0, T1, WEBHOOK_ID } from '@wts/testing';
import type { WebhookCredential } from './webhook.decider';
import { DEFAULT_ACCOUNT, DIGEST_2, T2, configured, disabled, enable, enabled, fold, spec } from './testing/webhook.decider.fixtures';

const SECRET_ID_1 = 'sgs_AAAAAAAAAAAAAAAAAAAAAA';
const SECRET_ID_2 = 'sgs_BBBBBBBBBBBBBBBBBBBBBB';

describe('webhookDecider', () => {
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
});
