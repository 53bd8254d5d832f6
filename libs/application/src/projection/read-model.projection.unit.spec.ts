import type { ServiceEvent } from '@wts/contracts';
import type { AuditRow } from '@wts/read-models';
import { toProjectionChanges } from './read-model.projection';
import { entry, recorded } from './testing/projection.fixtures';

describe('toProjectionChanges: admin writes become audit entries', () => {
  it.each<[string, ServiceEvent, Partial<AuditRow> & Pick<AuditRow, 'action' | 'targetType' | 'at'>]>([
    [
      'AccountConnected',
      {
        type: 'AccountConnected',
        data: { accountId: 'acc_1', email: 'a@example.com', aliases: [], connectedAt: '2024-05-01T10:00:00.000Z' },
      },
      { action: 'account.connect', targetType: 'account', targetId: 'acc_1', at: '2024-05-01T10:00:00.000Z' },
    ],
    [
      'AccountUpdated',
      { type: 'AccountUpdated', data: { accountId: 'acc_1', active: false, updatedAt: '2024-05-01T10:00:01.000Z' } },
      { action: 'account.update', targetType: 'account', targetId: 'acc_1', at: '2024-05-01T10:00:01.000Z' },
    ],
    [
      'PrimaryAccountChanged (to an account)',
      { type: 'PrimaryAccountChanged', data: { accountId: 'acc_2', previousAccountId: 'acc_1', changedAt: '2024-05-01T10:00:02.000Z' } },
      { action: 'account.set_primary', targetType: 'account', targetId: 'acc_2', at: '2024-05-01T10:00:02.000Z' },
    ],
    [
      'PrimaryAccountChanged (to none)',
      { type: 'PrimaryAccountChanged', data: { accountId: null, previousAccountId: 'acc_1', changedAt: '2024-05-01T10:00:03.000Z' } },
      { action: 'account.set_primary', targetType: 'account', targetId: null, at: '2024-05-01T10:00:03.000Z' },
    ],
    [
      'RoutineCreated',
      {
        type: 'RoutineCreated',
        data: {
          routineId: 'rtn_1',
          name: 'n',
          instructions: 'i',
          tools: [],
          mode: 'supervised',
          accountScope: [],
          createdAt: '2024-05-01T10:00:04.000Z',
        },
      },
      { action: 'routine.create', targetType: 'routine', targetId: 'rtn_1', routineId: 'rtn_1', at: '2024-05-01T10:00:04.000Z' },
    ],
    [
      'RoutineUpdated',
      { type: 'RoutineUpdated', data: { routineId: 'rtn_1', changes: { name: 'm' }, updatedAt: '2024-05-01T10:00:05.000Z' } },
      { action: 'routine.update', targetType: 'routine', targetId: 'rtn_1', routineId: 'rtn_1', at: '2024-05-01T10:00:05.000Z' },
    ],
    [
      'SecretRotated (the routine is left to the read model)',
      { type: 'SecretRotated', data: { webhookId: 'whk_1', secretDigest: 'a'.repeat(64), rotatedAt: '2024-05-01T10:00:06.000Z' } },
      { action: 'webhook.rotate', targetType: 'webhook', targetId: 'whk_1', webhookId: 'whk_1', at: '2024-05-01T10:00:06.000Z' },
    ],
    [
      'WebhookDisabled',
      { type: 'WebhookDisabled', data: { webhookId: 'whk_1', disabledAt: '2024-05-01T10:00:07.000Z' } },
      { action: 'webhook.disable', targetType: 'webhook', targetId: 'whk_1', webhookId: 'whk_1', at: '2024-05-01T10:00:07.000Z' },
    ],
    [
      'WebhookBlocked (the reason as detail)',
      { type: 'WebhookBlocked', data: { webhookId: 'whk_1', reason: 'abuse from 203.0.113.7', blockedAt: '2024-05-01T10:00:08.000Z' } },
      {
        action: 'webhook.block',
        targetType: 'webhook',
        targetId: 'whk_1',
        webhookId: 'whk_1',
        detail: 'abuse from 203.0.113.7',
        at: '2024-05-01T10:00:08.000Z',
      },
    ],
    [
      'WebhookUnblocked',
      { type: 'WebhookUnblocked', data: { webhookId: 'whk_1', unblockedAt: '2024-05-01T10:00:09.000Z' } },
      { action: 'webhook.unblock', targetType: 'webhook', targetId: 'whk_1', webhookId: 'whk_1', at: '2024-05-01T10:00:09.000Z' },
    ],
    [
      'ApiKeyIssued (role and name, never the digest)',
      {
        type: 'ApiKeyIssued',
        data: {
          keyId: 'key_1',
          name: 'CI "deploy" bot',
          role: 'operator',
          keyDigest: 'f'.repeat(64),
          expiresAt: null,
          issuedAt: '2024-05-01T10:00:10.000Z',
        },
      },
      {
        action: 'api_key.issue',
        targetType: 'api_key',
        targetId: 'key_1',
        detail: 'role operator, name "CI \\"deploy\\" bot"',
        at: '2024-05-01T10:00:10.000Z',
      },
    ],
    [
      'ApiKeyRevoked',
      { type: 'ApiKeyRevoked', data: { keyId: 'key_1', revokedAt: '2024-05-01T10:00:11.000Z' } },
      { action: 'api_key.revoke', targetType: 'api_key', targetId: 'key_1', at: '2024-05-01T10:00:11.000Z' },
    ],
    [
      'OperatorActionRecorded (replay)',
      {
        type: 'OperatorActionRecorded',
        data: {
          action: 'replay',
          detail: {
            target: 'kafka',
            from: '2024-05-01',
            types: 'DeliveryAccepted,RunCreated',
            dry_run: false,
            limit: 100,
            note: 'a b=c',
            none: null,
          },
          at: '2024-05-01T10:00:12.000Z',
        },
      },
      {
        action: 'replay',
        targetType: 'event_store',
        detail: 'target=kafka from=2024-05-01 types=DeliveryAccepted,RunCreated dry_run=false limit=100 note="a b=c" none=null',
        at: '2024-05-01T10:00:12.000Z',
      },
    ],
    [
      'OperatorActionRecorded (rebuild)',
      { type: 'OperatorActionRecorded', data: { action: 'rebuild_read_models', detail: {}, at: '2024-05-01T10:00:13.000Z' } },
      { action: 'rebuild_read_models', targetType: 'read_models', at: '2024-05-01T10:00:13.000Z' },
    ],
    [
      'OperatorActionRecorded (rotate-encryption-key)',
      {
        type: 'OperatorActionRecorded',
        data: { action: 'rotate_encryption_key', detail: { new_key: true, key_id: 'k0123456789abcdef' }, at: '2024-05-01T10:00:14.000Z' },
      },
      {
        action: 'rotate_encryption_key',
        targetType: 'signing_secrets',
        detail: 'new_key=true key_id=k0123456789abcdef',
        at: '2024-05-01T10:00:14.000Z',
      },
    ],
    [
      'ErasureRequested (the search string as its digest only)',
      {
        type: 'ErasureRequested',
        data: {
          erasureId: 'era_1',
          selection: { routineId: 'rtn_1', triggerAccount: 'a@example.com', containsDigest: 'c'.repeat(64) },
          requestedAt: '2024-05-01T10:00:15.000Z',
          requestedBy: 'sub-alice',
        },
      },
      {
        action: 'erase_payloads',
        targetType: 'erasure',
        targetId: 'era_1',
        routineId: 'rtn_1',
        detail: `routine rtn_1, trigger account a@example.com, contains sha256:${'c'.repeat(64)}`,
        at: '2024-05-01T10:00:15.000Z',
      },
    ],
  ])('%s', (_name, event, facts) => {
    expect(toProjectionChanges(recorded(event))).toEqual([entry(facts)]);
  });
});
