import { StreamCategories, type DispatchParked, type ServiceEvent } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';
import type { ProjectionChange } from '@wts/read-models';
import { toTriggerAccountRow } from '../run/run.view';
import { asEvent } from '../shared/event-envelope';
import { auditEntry, auditFactsOf } from './audit-entry.projection';

/** The projection's name: its checkpoint in the read-model database. */
export const READ_MODEL_PROJECTION = 'read-models';

/**
 * The only streams the projection reads: the listings' (deliveries, runs, parks, and the payload
 * removals that change a delivery's payload state) and the audited ones (accounts, routines,
 * webhooks and their id claims, API keys, command-line operations, erasure requests).
 */
export const PROJECTED_PREFIXES: readonly string[] = [
  StreamCategories.delivery,
  StreamCategories.run,
  StreamCategories.parked,
  StreamCategories.account,
  StreamCategories.routine,
  StreamCategories.webhook,
  StreamCategories.webhookSlot,
  StreamCategories.apiKey,
  StreamCategories.operatorAction,
  StreamCategories.payloadRemoval,
  StreamCategories.erasure,
];

/**
 * The rows an event becomes in the read-model database, in the order they are written (pure: no
 * I/O, no clock). An enabled webhook is two: its routine mapping, then its audit entry.
 */
export function toProjectionChanges(recorded: RecordedEvent): readonly ProjectionChange[] {
  const event = asEvent<ServiceEvent>(recorded);
  const position = recorded.position;
  switch (event.type) {
    case 'DeliveryAccepted': {
      const { deliveryId, routineId, webhookId, runId, receivedAt, triggerAccount, contentType, idempotencyKey } = event.data;
      // Null for a version 1 event: its payload is inline (legacyPayload) and never expires.
      const payloadExpiresAt = instant(event.data.payloadExpiresAt);
      const row = {
        delivery_id: deliveryId,
        routine_id: routineId,
        webhook_id: webhookId,
        run_id: runId,
        received_at: receivedAt,
        trigger_account: toTriggerAccountRow(triggerAccount),
        content_type: contentType,
        idempotency_key: idempotencyKey,
      };
      return [{ kind: 'delivery', position, row: { ...row, payload_expires_at: payloadExpiresAt } }];
    }
    case 'PayloadsRemoved': {
      const { reason, removedAt, deliveryIds } = event.data;
      // A batch recorded twice (a crash between the event and the overwrite) changes nothing the second time.
      return [
        {
          kind: 'payload_removal',
          position,
          row: { deliveryIds: [...deliveryIds], state: reason, removedAt: instant(removedAt) ?? removedAt },
        },
      ];
    }
    case 'RunWithheld':
      // No run was made, nor ever will be: nothing to list (the delivery is parked, and listed so, by the dispatcher).
      return [];
    case 'RunCreated': {
      const { runId, routineId, webhookId, deliveryId, triggerAccount, status, createdAt } = event.data;
      return [
        {
          kind: 'run',
          position,
          row: {
            run_id: runId,
            routine_id: routineId,
            webhook_id: webhookId,
            delivery_id: deliveryId,
            trigger_account: toTriggerAccountRow(triggerAccount),
            status,
            created_at: createdAt,
          },
        },
      ];
    }
    case 'DispatchParked':
      return [{ kind: 'parked', position, row: parkedRow(event.data) }];
    case 'WebhookIdAssigned':
      return [{ kind: 'webhook_routine', position, row: { webhookId: event.data.webhookId, routineId: event.data.routineId } }];
    case 'WebhookEnabled': {
      const mapping: ProjectionChange = {
        kind: 'webhook_routine',
        position,
        row: { webhookId: event.data.webhookId, routineId: event.data.routineId },
      };
      return [mapping, ...auditChanges(recorded, event)];
    }
    default:
      return auditChanges(recorded, event);
  }
}

function auditChanges(recorded: RecordedEvent, event: ServiceEvent): ProjectionChange[] {
  const facts = auditFactsOf(event);
  return facts ? [{ kind: 'audit', position: recorded.position, row: auditEntry(recorded, facts) }] : [];
}

/**
 * The time as toISOString writes it, as every stored time is: the sweep compares expiries with
 * `now` as text. Null stays null; a value that is not a time is kept as written.
 */
function instant(value: string | null): string | null {
  if (value === null) return null;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? value : time.toISOString();
}

function parkedRow(data: DispatchParked['data']): Extract<ProjectionChange, { kind: 'parked' }>['row'] {
  const deliveryId =
    data.deliveryId ??
    (data.sourceStream.startsWith(StreamCategories.delivery) ? data.sourceStream.slice(StreamCategories.delivery.length) : null);
  return {
    source_event_id: data.sourceEventId,
    source_stream: data.sourceStream,
    source_type: data.sourceType,
    delivery_id: deliveryId,
    routine_id: data.routineId ?? null,
    error: data.error,
    parked_at: data.parkedAt,
  };
}
