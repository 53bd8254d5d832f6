import type { ServiceEvent } from '@wts/contracts';
import type { AuditRow, ProjectionChange } from '@wts/read-models';
import { MAX_AUDIT_DETAIL_CHARS, auditFactsOf } from './audit-entry.projection';
import { toProjectionChanges } from './read-model.projection';
import { ALICE, CREATED_AT, POSITION, TRACEPARENT, TRACE_ID, auditOf, entry, recorded, rotated } from './testing/projection.fixtures';

describe('toProjectionChanges: the envelope of audit entries (actor, time, trace, detail)', () => {
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

describe('auditFactsOf: WebhookRetentionChanged', () => {
  const changed = (payloadRetentionDays: number | null) =>
    auditFactsOf({
      type: 'WebhookRetentionChanged',
      data: { webhookId: 'whk_1', payloadRetentionDays, changedAt: '2024-05-01T10:00:00.000Z' },
    });

  it('is webhook.retention on the webhook, naming the days, or "default" for null', () => {
    expect(changed(30)).toEqual({
      action: 'webhook.retention',
      targetType: 'webhook',
      targetId: 'whk_1',
      routineId: null,
      webhookId: 'whk_1',
      detail: 'payload retention 30 days',
      occurredAt: '2024-05-01T10:00:00.000Z',
    });
    expect(changed(1)?.detail).toBe('payload retention 1 day');
    expect(changed(null)?.detail).toBe('payload retention default');
  });
});
