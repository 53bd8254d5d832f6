import { StreamCategories, type ServiceEvent } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';
import type { AuditRow, ProjectionChange } from '@wts/read-models';
import { MAX_AUDIT_DETAIL_CHARS } from './audit-entry.projection';
import { PROJECTED_PREFIXES, toProjectionChanges } from './read-model.projection';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
const ALICE = { kind: 'oidc', subject: 'sub-alice', display: 'alice@example.com', displayVerified: true } as const;
const CREATED_AT = new Date('2024-05-01T09:00:00.000Z');
const POSITION = { commit: 42n, prepare: 41n };

/** A stored event as the store hands it to the projection: metadata is stored JSON (unknown). */
function recorded(
  event: ServiceEvent | { type: string; data: object },
  metadata: unknown = { traceparent: TRACEPARENT, actor: ALICE },
): RecordedEvent {
  return {
    id: 'evt-1',
    streamId: 'some-stream',
    revision: 0n,
    position: POSITION,
    type: event.type,
    data: event.data,
    metadata,
    createdAt: CREATED_AT,
  };
}

/** The audit entry an admin write becomes, from the given facts and this file's envelope defaults. */
function entry(facts: Partial<AuditRow> & Pick<AuditRow, 'action' | 'targetType' | 'at'>): ProjectionChange {
  return {
    kind: 'audit',
    position: POSITION,
    row: {
      entryId: 'evt-1',
      actor: ALICE,
      targetId: null,
      routineId: null,
      webhookId: null,
      outcome: 'succeeded',
      traceId: TRACE_ID,
      detail: null,
      sourceAddress: null,
      ...facts,
    },
  };
}

function auditOf(changes: readonly ProjectionChange[]): AuditRow {
  const change = changes.find((c) => c.kind === 'audit');
  if (change?.kind !== 'audit')
    throw new Error(`no audit change in ${JSON.stringify(changes, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
  return change.row;
}

const rotated = (rotatedAt: unknown): { type: string; data: object } => ({
  type: 'SecretRotated',
  data: { webhookId: 'whk_1', secretDigest: 'a'.repeat(64), rotatedAt },
});

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
  ])('%s', (_name, event, facts) => {
    expect(toProjectionChanges(recorded(event))).toEqual([entry(facts)]);
  });

  it('WebhookIdAssigned is the webhook -> routine mapping only; WebhookEnabled is the mapping, then its audit entry', () => {
    const mapping: ProjectionChange = { kind: 'webhook_routine', position: POSITION, row: { webhookId: 'whk_1', routineId: 'rtn_1' } };
    expect(
      toProjectionChanges(
        recorded({ type: 'WebhookIdAssigned', data: { routineId: 'rtn_1', webhookId: 'whk_1', assignedAt: '2024-05-01T10:00:00.000Z' } }),
      ),
    ).toEqual([mapping]);

    const enabled: ServiceEvent = {
      type: 'WebhookEnabled',
      data: {
        webhookId: 'whk_1',
        routineId: 'rtn_1',
        secretDigest: 'e'.repeat(64),
        defaultAccount: { accountId: 'acc_1', email: 'a@example.com' },
        accountOverrideAllowed: false,
        enabledAt: '2024-05-01T10:00:14.000Z',
      },
    };
    const changes = toProjectionChanges(recorded(enabled));
    expect(changes).toEqual([
      mapping,
      entry({
        action: 'webhook.enable',
        targetType: 'webhook',
        targetId: 'whk_1',
        routineId: 'rtn_1',
        webhookId: 'whk_1',
        at: '2024-05-01T10:00:14.000Z',
      }),
    ]);
    expect(JSON.stringify(changes, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toContain('e'.repeat(64));
  });

  it.each<[string, unknown]>([
    ['no metadata', null],
    ['metadata without an actor (an event that predates actors)', { traceparent: TRACEPARENT }],
    ['an actor that is not an object', { actor: 'alice' }],
    ['an actor that is an array', { actor: ['oidc', 'sub', 'x'] }],
    ['an unknown kind', { actor: { ...ALICE, kind: 'root' } }],
    ['a missing subject', { actor: { kind: 'oidc', display: 'x' } }],
    ['an empty subject', { actor: { ...ALICE, subject: '' } }],
    ['a display that is not a string', { actor: { ...ALICE, display: 7 } }],
  ])('the actor is null for %s', (_name, metadata) => {
    expect(auditOf(toProjectionChanges(recorded(rotated('2024-05-01T10:00:00.000Z'), metadata))).actor).toBeNull();
  });

  it('keeps only the four fields of a well-formed actor', () => {
    const metadata = {
      actor: { kind: 'api_key', subject: 'key_1', display: 'CI bot', displayVerified: true, role: 'admin', token: 'secret' },
    };
    expect(auditOf(toProjectionChanges(recorded(rotated('2024-05-01T10:00:00.000Z'), metadata))).actor).toEqual({
      kind: 'api_key',
      subject: 'key_1',
      display: 'CI bot',
      displayVerified: true,
    });
  });

  it.each<[string, Record<string, unknown>, boolean]>([
    ['an OIDC display stored as verified', { ...ALICE, displayVerified: true }, true],
    ['an OIDC display stored as not verified', { ...ALICE, displayVerified: false }, false],
    [
      'an OIDC display stored before it was recorded (an email, maybe typed)',
      { kind: 'oidc', subject: 's', display: 'ceo@example.com' },
      false,
    ],
    ['an OIDC display whose flag is not a boolean', { ...ALICE, displayVerified: 'true' }, false],
    ["a key's name stored before it was recorded", { kind: 'api_key', subject: 'key_1', display: 'CI bot' }, true],
    [
      "the bootstrap's display stored before it was recorded",
      { kind: 'bootstrap', subject: 'bootstrap', display: 'bootstrap token' },
      true,
    ],
  ])('whether the display is verified, for %s: %s', (_name, actor, verified) => {
    const audited = auditOf(toProjectionChanges(recorded(rotated('2024-05-01T10:00:00.000Z'), { actor })));
    expect(audited.actor).toMatchObject({ displayVerified: verified });
  });

  it.each<[string, unknown, string | null]>([
    ['a valid traceparent', TRACEPARENT, TRACE_ID],
    ['none', undefined, null],
    ['an empty one', '', null],
    ['upper-case hex', TRACEPARENT.toUpperCase(), null],
    ['another version', `01-${TRACE_ID}-00f067aa0ba902b7-01`, null],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, null],
    ['an all-zero parent id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`, null],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-00f067aa0ba902b7-01`, null],
    ['trailing text', `${TRACEPARENT}-extra`, null],
    ['a number', 42, null],
  ])('the trace id from %s', (_name, traceparent, expected) => {
    expect(auditOf(toProjectionChanges(recorded(rotated('2024-05-01T10:00:00.000Z'), { traceparent, actor: ALICE }))).traceId).toBe(
      expected,
    );
  });

  it("`at` is the event's own time in one form, or the stored event's time when the event has none", () => {
    const atOf = (value: unknown): string => auditOf(toProjectionChanges(recorded(rotated(value)))).at;
    expect(atOf('2024-05-01T10:00:00.123Z')).toBe('2024-05-01T10:00:00.123Z');
    expect(atOf('2024-05-01T12:00:00+02:00')).toBe('2024-05-01T10:00:00.000Z');
    expect(atOf(undefined)).toBe(CREATED_AT.toISOString());
    expect(atOf('not a time')).toBe(CREATED_AT.toISOString());
    expect(atOf(1714557600000)).toBe(CREATED_AT.toISOString());
  });

  it('bounds a long operator detail and a long block reason to the maximum, never splitting a character', () => {
    const detail = { selection: `${'😀'.repeat(MAX_AUDIT_DETAIL_CHARS)}` };
    const operator = auditOf(
      toProjectionChanges(recorded({ type: 'OperatorActionRecorded', data: { action: 'replay', detail, at: '2024-05-01T10:00:00.000Z' } })),
    );
    const chars = Array.from(operator.detail ?? '');
    expect(chars).toHaveLength(MAX_AUDIT_DETAIL_CHARS);
    expect(chars.at(-1)).toBe('…');
    expect(chars.slice(0, 10).join('')).toBe('selection=');
    expect(chars.slice(10, -1).every((char) => char === '😀')).toBe(true);

    const reason = 'r'.repeat(MAX_AUDIT_DETAIL_CHARS + 1);
    const blocked = auditOf(
      toProjectionChanges(
        recorded({ type: 'WebhookBlocked', data: { webhookId: 'whk_1', reason, blockedAt: '2024-05-01T10:00:00.000Z' } }),
      ),
    );
    expect(blocked.detail).toBe(`${'r'.repeat(MAX_AUDIT_DETAIL_CHARS - 1)}…`);
    const exact = 'r'.repeat(MAX_AUDIT_DETAIL_CHARS);
    expect(
      auditOf(
        toProjectionChanges(
          recorded({ type: 'WebhookBlocked', data: { webhookId: 'whk_1', reason: exact, blockedAt: '2024-05-01T10:00:00.000Z' } }),
        ),
      ).detail,
    ).toBe(exact);
  });

  it('renders an operator detail value that is not a scalar as JSON, and no detail as null', () => {
    const row = (detail: unknown): AuditRow =>
      auditOf(
        toProjectionChanges(
          recorded({ type: 'OperatorActionRecorded', data: { action: 'replay', detail, at: '2024-05-01T10:00:00.000Z' } }),
        ),
      );
    expect(row({ ids: ['a', 'b'], empty: '' }).detail).toBe('ids=["a","b"] empty=""');
    expect(row({}).detail).toBeNull();
    expect(row(null).detail).toBeNull();
    expect(row('text').detail).toBeNull();
  });
});

describe('toProjectionChanges: listings and the rest', () => {
  it('a delivery, a run and a park are one row each, as before', () => {
    const triggerAccount = { accountId: 'acc_1', email: 'a@example.com' };
    const accepted = toProjectionChanges(
      recorded({
        type: 'DeliveryAccepted',
        data: {
          deliveryId: 'dlv_1',
          webhookId: 'whk_1',
          routineId: 'rtn_1',
          runId: 'run_1',
          triggerAccount,
          payload: { format: 'text', text: 'x' },
          contentType: 'text/plain',
          idempotencyKey: null,
          requestDigest: '0'.repeat(64),
          receivedAt: '2024-05-01T10:00:00.000Z',
        },
      }),
    );
    expect(accepted).toEqual([
      {
        kind: 'delivery',
        position: POSITION,
        row: {
          deliveryId: 'dlv_1',
          routineId: 'rtn_1',
          webhookId: 'whk_1',
          runId: 'run_1',
          receivedAt: '2024-05-01T10:00:00.000Z',
          triggerAccount,
          contentType: 'text/plain',
          idempotencyKey: null,
        },
      },
    ]);
    const parked = toProjectionChanges(
      recorded({
        type: 'DispatchParked',
        data: {
          sourceEventId: 'evt-0',
          sourceStream: 'delivery-dlv_2',
          sourceType: 'DeliveryAccepted',
          error: 'boom',
          parkedAt: '2024-05-01T10:00:01.000Z',
        },
      }),
    );
    expect(parked).toEqual([
      {
        kind: 'parked',
        position: POSITION,
        row: {
          sourceEventId: 'evt-0',
          sourceStream: 'delivery-dlv_2',
          sourceType: 'DeliveryAccepted',
          deliveryId: 'dlv_2',
          routineId: null,
          error: 'boom',
          parkedAt: '2024-05-01T10:00:01.000Z',
        },
      },
    ]);
  });

  it('an idempotency index and a type this build does not know become nothing', () => {
    expect(
      toProjectionChanges(
        recorded({
          type: 'IdempotencyGenerationAdvanced',
          data: { indexId: 'x', generation: 2, deliveryId: 'dlv_1', advancedAt: '2024-05-01T10:00:00.000Z' },
        }),
      ),
    ).toEqual([]);
    expect(toProjectionChanges(recorded({ type: 'SomethingNew', data: { webhookId: 'whk_1' } }))).toEqual([]);
  });

  it('reads the listed streams and the audited ones, and nothing else', () => {
    expect([...PROJECTED_PREFIXES].sort()).toEqual(
      [
        StreamCategories.delivery,
        StreamCategories.run,
        StreamCategories.parked,
        StreamCategories.account,
        StreamCategories.routine,
        StreamCategories.webhook,
        StreamCategories.webhookSlot,
        StreamCategories.apiKey,
        StreamCategories.operatorAction,
        StreamCategories.erasure,
      ].sort(),
    );
    expect(PROJECTED_PREFIXES).not.toContain(StreamCategories.idempotencyKey);
  });
});
