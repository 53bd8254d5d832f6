import { eventually } from '@wts/testing';
import { randomUUID } from 'node:crypto';
import {
  EventStoreUnavailableError,
  comparePositions,
  type CheckpointStore,
  type EventStore,
  type EventToAppend,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../event-store.port';

/** A store and its checkpoints, as a process would hold them. */
export interface EventStoreHandles {
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
}

/** What an adapter's test hands to the contract suite, once per test. */
export interface EventStoreContractSubject extends EventStoreHandles {
  /**
   * Opens the same data again, like a process restart. The test closes `store` first. When absent,
   * the restart tests keep using the original handles.
   */
  readonly reopen?: () => Promise<EventStoreHandles>;
  /** Closes whatever is still open (close() is idempotent) and removes the data. */
  readonly cleanup: () => Promise<void>;
}

export type EventStoreContractFactory = () => Promise<EventStoreContractSubject>;

/** The per-test state the contract cases read (set in beforeEach). */
export interface ContractContext {
  readonly subject: EventStoreContractSubject;
  /**
   * A unique stream-name prefix for this test, so the suite also works against a shared server
   * whose $all already holds other events: tests only look at streams starting with it.
   */
  readonly ns: string;
}

export function newEvent(type = 'ContractTested', data: object = { at: Date.now() }): EventToAppend {
  return { id: randomUUID(), type, data, metadata: { correlationId: randomUUID() } };
}

export function newEvents(count: number, type = 'ContractTested'): EventToAppend[] {
  return Array.from({ length: count }, (_, index) => newEvent(type, { index }));
}

export function newNamespace(): string {
  return `ct${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface Collector {
  readonly events: RecordedEvent[];
  readonly subscription: Subscription;
  /** Waits until at least `count` events arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
}

/** Subscribes and records every delivered event; `onEvent` runs after recording. */
export function collect(
  store: EventStore,
  options: SubscribeOptions,
  onEvent?: (event: RecordedEvent, events: readonly RecordedEvent[]) => Promise<void> | void,
): Collector {
  const events: RecordedEvent[] = [];
  const subscription = store.subscribeToAll(options, async (event) => {
    events.push(event);
    await onEvent?.(event, events);
  });
  return {
    events,
    subscription,
    waitFor: async (count, timeoutMs = 3000) => {
      await eventually(() => events.length >= count, timeoutMs, `${count} events`, 5);
    },
  };
}

export function ids(events: readonly { readonly id: string }[]): string[] {
  return events.map((event) => event.id);
}

/** A promise with its resolve function exposed. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** Each event comes strictly after the one before it in the store's global order. */
export function expectGlobalOrder(events: readonly RecordedEvent[]): void {
  for (let index = 1; index < events.length; index += 1) {
    expect(comparePositions(events[index - 1].position, events[index].position)).toBeLessThan(0);
  }
}

/** Every call of a closed store (a write, the reads, a ping, its checkpoints, a subscription) rejects with EventStoreUnavailableError. */
export async function expectUnavailableOnceClosed(store: EventStore & { checkpoints(): CheckpointStore }): Promise<void> {
  await expect(store.append('delivery-1', [newEvent()], 'any')).rejects.toBeInstanceOf(EventStoreUnavailableError);
  await expect(store.readStream('delivery-1')).rejects.toBeInstanceOf(EventStoreUnavailableError);
  await expect(store.readAll({ limit: 10 })).rejects.toBeInstanceOf(EventStoreUnavailableError);
  await expect(store.headPosition()).rejects.toBeInstanceOf(EventStoreUnavailableError);
  await expect(store.ping()).rejects.toBeInstanceOf(EventStoreUnavailableError);
  await expect(store.checkpoints().load('x')).rejects.toBeInstanceOf(EventStoreUnavailableError);
  await expect(store.subscribeToAll({}, () => undefined).done).rejects.toBeInstanceOf(EventStoreUnavailableError);
}
