import type { CheckpointStore, EventStore } from '@wts/event-store';

/** What opening the configured event store gives a service (openEventStore, either backend). */
export interface OpenedStore {
  readonly store: EventStore;
  readonly checkpoints: CheckpointStore;
  readonly description: string;
}
