import type { ServiceEvent } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';
import type { AuditRow, ProjectionChange } from '@wts/read-models';

/** Stored events as the store hands them to the projection, and the audit entries they become (the projection's unit specs). */

export const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
export const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;
export const ALICE = { kind: 'oidc', subject: 'sub-alice', display: 'alice@example.com', displayVerified: true } as const;
export const CREATED_AT = new Date('2024-05-01T09:00:00.000Z');
export const POSITION = { commit: 42n, prepare: 41n };

/** A stored event as the store hands it to the projection: metadata is stored JSON (unknown). */
export function recorded(
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
export function entry(facts: Partial<AuditRow> & Pick<AuditRow, 'action' | 'targetType' | 'at'>): ProjectionChange {
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

export function auditOf(changes: readonly ProjectionChange[]): AuditRow {
  const change = changes.find((c) => c.kind === 'audit');
  if (change?.kind !== 'audit')
    throw new Error(`no audit change in ${JSON.stringify(changes, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`);
  return change.row;
}

export const rotated = (rotatedAt: unknown): { type: string; data: object } => ({
  type: 'SecretRotated',
  data: { webhookId: 'whk_1', secretDigest: 'a'.repeat(64), rotatedAt },
});
