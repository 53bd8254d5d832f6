/** Stream names, one place. A category is the part before the first dash. */
export const Streams = {
  webhook: (webhookId: string): string => `webhook-${webhookId}`,
  routine: (routineId: string): string => `routine-${routineId}`,
  delivery: (deliveryId: string): string => `delivery-${deliveryId}`,
  /** A delivery its webhook's filter turned away (DeliveryFiltered): no payload, no run; never relayed or dispatched. */
  filteredDelivery: (deliveryId: string): string => `filtered_delivery-${deliveryId}`,
  run: (runId: string): string => `run-${runId}`,
  /** The claim of a routine's webhook id (one per routine, never relayed). */
  webhookSlot: (routineId: string): string => `webhook_slot-${routineId}`,
  /** One parked stream per source event: parking twice is a no-op. */
  parked: (sourceEventId: string): string => `parked-${sourceEventId}`,
  /** The generations of one idempotency key of one webhook (the index id is a digest of both). */
  idempotencyKey: (indexId: string): string => `idempotency_key-${indexId}`,
  /** A signed webhook's sealed signing secrets: read by the ingress only, never relayed or projected. */
  signingSecret: (webhookId: string): string => `signing_secret-${webhookId}`,
  /** One stream per command-line operation (replay, rebuild) recorded for the audit trail. */
  operatorAction: (actionId: string): string => `operator_action-${actionId}`,
  /** One stream per batch of payloads removed (expired or erased). */
  payloadRemoval: (batchId: string): string => `payload_removal-${batchId}`,
  /** One stream per erasure request (era_…). */
  erasure: (erasureId: string): string => `erasure-${erasureId}`,
} as const;

export const StreamCategories = {
  webhook: 'webhook-',
  routine: 'routine-',
  delivery: 'delivery-',
  filteredDelivery: 'filtered_delivery-',
  run: 'run-',
  parked: 'parked-',
  accountCatalog: 'account-catalog',
  /** The category of the account catalog stream (the category index serves whole categories). */
  account: 'account-',
  webhookSlot: 'webhook_slot-',
  idempotencyKey: 'idempotency_key-',
  /** The category of the API key catalog stream. */
  apiKey: 'api_key-',
  operatorAction: 'operator_action-',
  signingSecret: 'signing_secret-',
  payloadRemoval: 'payload_removal-',
  erasure: 'erasure-',
} as const;
