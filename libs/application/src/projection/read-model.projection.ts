import { StreamCategories, type DispatchParked, type ServiceEvent } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';
import type { ProjectionChange } from '@wts/read-models';
import { asEvent } from '../shared/event-envelope';
import { auditEntry, auditFactsOf } from './audit-entry.projection';

/** The projection's name: its checkpoint in the read-model database. */
export const READ_MODEL_PROJECTION = 'read-models';

/**
 * The only streams the projection reads: the listings' (deliveries, runs, parks) and the audited
 * ones (accounts, routines, webhooks and their id claims, API keys, command-line operations, erasures).
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
  // Erasure requests, for the audit trail (erase_payloads; the search string as its digest only).
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
      return [
        {
          kind: 'delivery',
          position,
          row: { deliveryId, routineId, webhookId, runId, receivedAt, triggerAccount: { ...triggerAccount }, contentType, idempotencyKey },
        },
      ];
    }
    case 'RunCreated': {
      const { runId, routineId, webhookId, deliveryId, triggerAccount, status, createdAt } = event.data;
      return [
        {
          kind: 'run',
          position,
          row: { runId, routineId, webhookId, deliveryId, triggerAccount: { ...triggerAccount }, status, createdAt },
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
