import { comparePositions, type RecordedEvent } from '@wts/event-store';

export interface AcceptedDeliveryData {
  readonly deliveryId: string;
  readonly runId: string;
}

export interface CreatedRunData {
  readonly runId: string;
  readonly deliveryId: string;
}

/**
 * Exactly `count` accepted deliveries (retries collapsed by the idempotency key) and one run each,
 * each run the one its delivery names. Returns both lists for further checks.
 */
export function expectOneRunPerDelivery(
  events: readonly RecordedEvent[],
  count: number,
): { deliveries: AcceptedDeliveryData[]; runs: CreatedRunData[] } {
  const deliveries = events.filter((e) => e.type === 'DeliveryAccepted').map((e) => e.data as AcceptedDeliveryData);
  const runs = events.filter((e) => e.type === 'RunCreated').map((e) => e.data as CreatedRunData);
  expect(deliveries).toHaveLength(count);
  expect(runs).toHaveLength(count);
  expect(new Set(runs.map((r) => r.runId)).size).toBe(count);
  const deliveryById = new Map(deliveries.map((d) => [d.deliveryId, d]));
  for (const run of runs) expect(deliveryById.get(run.deliveryId)?.runId).toBe(run.runId);
  return { deliveries, runs };
}

/**
 * A held webhook's release: exactly one run per accepted delivery, each the one its delivery names,
 * and the runs' order in $all their deliveries' order (acceptance order).
 */
export function expectOneRunEachInAcceptanceOrder(deliveries: readonly RecordedEvent[], runs: readonly RecordedEvent[]): void {
  expect(runs).toHaveLength(deliveries.length);
  const runIdOf = new Map(deliveries.map((d) => [(d.data as AcceptedDeliveryData).deliveryId, (d.data as AcceptedDeliveryData).runId]));
  expect(new Set(runs.map((r) => (r.data as CreatedRunData).runId)).size).toBe(runs.length);
  for (const run of runs) expect(runIdOf.get((run.data as CreatedRunData).deliveryId)).toBe((run.data as CreatedRunData).runId);
  const byPosition = (a: RecordedEvent, b: RecordedEvent): number => comparePositions(a.position, b.position);
  const deliveryOrder = [...deliveries].sort(byPosition).map((d) => (d.data as AcceptedDeliveryData).deliveryId);
  const runOrder = [...runs].sort(byPosition).map((r) => (r.data as CreatedRunData).deliveryId);
  expect(runOrder).toEqual(deliveryOrder);
}
