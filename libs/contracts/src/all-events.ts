import type { ApiKeyEvent, OperatorActionRecorded } from './access.events';
import type { AccountCatalogEvent, RoutineEvent } from './catalog.events';
import type { DeliveryEvent, DeliveryFiltered, IdempotencyGenerationAdvanced } from './delivery.events';
import type { ErasureEvent, PayloadEvent } from './payload.events';
import type { DispatchParked, RunEvent } from './run.events';
import { WEBHOOK_EVENT_TYPES, type SigningSecretEvent, type WebhookEvent, type WebhookIdAssigned } from './webhook.events';

export type ServiceEvent =
  | AccountCatalogEvent
  | RoutineEvent
  | WebhookEvent
  | WebhookIdAssigned
  | SigningSecretEvent
  | DeliveryEvent
  | DeliveryFiltered
  | IdempotencyGenerationAdvanced
  | RunEvent
  | DispatchParked
  | PayloadEvent
  | ErasureEvent
  | ApiKeyEvent
  | OperatorActionRecorded;

export type ServiceEventType = ServiceEvent['type'];

export const SERVICE_EVENT_TYPES: readonly ServiceEventType[] = [
  'AccountConnected',
  'AccountUpdated',
  'PrimaryAccountChanged',
  'RoutineCreated',
  'RoutineUpdated',
  ...WEBHOOK_EVENT_TYPES,
  'WebhookIdAssigned',
  'SigningSecretSealed',
  'SigningSecretResealed',
  'DeliveryAccepted',
  'DeliveryFiltered',
  'IdempotencyGenerationAdvanced',
  'RunCreated',
  'RunWithheld',
  'DispatchParked',
  'PayloadsRemoved',
  'ErasureRequested',
  'ErasureProgressed',
  'ErasureFinished',
  'ApiKeyIssued',
  'ApiKeyRevoked',
  'OperatorActionRecorded',
];

export function isServiceEventType(type: string): type is ServiceEventType {
  return (SERVICE_EVENT_TYPES as readonly string[]).includes(type);
}

/** Exhaustiveness guard for switches over event unions. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
