import { StreamCategories, type DispatchParked, type ServiceEvent } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';
import type { ProjectionChange } from '@wts/read-models';
import { asEvent } from '../shared/event-envelope';

/** The projection's name: its checkpoint in the read-model database. */
export const READ_MODEL_PROJECTION = 'read-models';

/** The only streams the projection reads. */
export const PROJECTED_PREFIXES: readonly string[] = [StreamCategories.delivery, StreamCategories.run, StreamCategories.parked];

/** The row an event becomes in the read-model database, if any (pure: no I/O, no clock). */
export function toProjectionChange(recorded: RecordedEvent): ProjectionChange | undefined {
  const event = asEvent<ServiceEvent>(recorded);
  const position = recorded.position;
  switch (event.type) {
    case 'DeliveryAccepted': {
      const { deliveryId, routineId, webhookId, runId, receivedAt, triggerAccount, contentType, idempotencyKey } = event.data;
      return {
        kind: 'delivery',
        position,
        row: { deliveryId, routineId, webhookId, runId, receivedAt, triggerAccount: { ...triggerAccount }, contentType, idempotencyKey },
      };
    }
    case 'RunCreated': {
      const { runId, routineId, webhookId, deliveryId, triggerAccount, status, createdAt } = event.data;
      return {
        kind: 'run',
        position,
        row: { runId, routineId, webhookId, deliveryId, triggerAccount: { ...triggerAccount }, status, createdAt },
      };
    }
    case 'DispatchParked':
      return { kind: 'parked', position, row: parkedRow(event.data) };
    default:
      return undefined;
  }
}

function parkedRow(data: DispatchParked['data']): Extract<ProjectionChange, { kind: 'parked' }>['row'] {
  const deliveryId =
    data.deliveryId ??
    (data.sourceStream.startsWith(StreamCategories.delivery) ? data.sourceStream.slice(StreamCategories.delivery.length) : null);
  return {
    sourceEventId: data.sourceEventId,
    sourceStream: data.sourceStream,
    sourceType: data.sourceType,
    deliveryId,
    routineId: data.routineId ?? null,
    error: data.error,
    parkedAt: data.parkedAt,
  };
}
