/** Reads the event store directly (no read-model lag): what the tests check the ingress wrote. */
import type { EventStore, RecordedEvent } from '@wts/event-store';
import { eventually } from '@wts/testing';

export async function allEvents(store: EventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for (;;) {
    const batch = await store.readAll({ after: events.at(-1)?.position, limit: 500 });
    events.push(...batch);
    if (batch.length < 500) return events;
  }
}

/** Events of `type` in the streams starting with `streamPrefix`, optionally only those of one routine. */
async function eventsOf(store: EventStore, streamPrefix: string, type: string, routineId?: string): Promise<RecordedEvent[]> {
  const events = await store.readAll({ limit: 100_000, filter: { streamPrefixes: [streamPrefix] } });
  return events.filter(
    (event) => event.type === type && (routineId === undefined || (event.data as { routineId: string }).routineId === routineId),
  );
}

/** DeliveryAccepted events in the store (optionally for one routine). */
export function acceptedDeliveries(store: EventStore, routineId?: string): Promise<RecordedEvent[]> {
  return eventsOf(store, 'delivery-', 'DeliveryAccepted', routineId);
}

/** RunCreated events in the store (optionally for one routine). */
export function createdRuns(store: EventStore, routineId?: string): Promise<RecordedEvent[]> {
  return eventsOf(store, 'run-', 'RunCreated', routineId);
}

/** DispatchParked events in the store (optionally for one routine). */
export function parkedDispatches(store: EventStore, routineId?: string): Promise<RecordedEvent[]> {
  return eventsOf(store, 'parked-', 'DispatchParked', routineId);
}

/** Waits (up to `timeoutMs`) until the store holds at least `runs` RunCreated events; resolves with all its events then. */
export function eventuallyEveryRun(store: EventStore, runs: number, timeoutMs: number, what: string): Promise<RecordedEvent[]> {
  return eventually(
    async () => {
      const events = await allEvents(store);
      return events.filter((e) => e.type === 'RunCreated').length >= runs ? events : undefined;
    },
    timeoutMs,
    what,
  );
}
