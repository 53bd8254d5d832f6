import type { RoutineMode, RoutineTool } from './catalog.events';
import type { DeliverySender } from './delivery.events';
import type { Event } from './event.contract';
import type { TriggerAccount } from './webhook.events';

export interface RoutineSnapshot {
  readonly name: string;
  readonly tools: readonly RoutineTool[];
  readonly instructions: string;
  readonly mode: RoutineMode;
}

/** The inputs of the framer besides the payload and the run's own ids. */
export interface RunFraming {
  /** The framer's version: a run is always framed by the version it was created with. */
  readonly version: number;
  readonly receivedAt: string;
  readonly contentType: string;
  readonly sender?: DeliverySender;
}

export type RunCreated = Event<
  'RunCreated',
  {
    readonly runId: string;
    readonly routineId: string;
    readonly webhookId: string;
    readonly deliveryId: string;
    readonly triggerAccount: TriggerAccount;
    readonly routine: RoutineSnapshot;
    /**
     * What the fixed, service-written message framing the payload as untrusted data is made of,
     * besides the payload: the message is framed when read (the framer is pure and versioned), so
     * the payload is stored once. Null in a run written before (schema version 1 or 2), which
     * carried its framed message (`legacyInitialMessage`).
     */
    readonly framing: RunFraming | null;
    /** Only when read from a schema version 1 or 2 event, which stored the framed message (see upcastEvent). */
    readonly legacyInitialMessage?: string;
    readonly status: 'created';
    readonly createdAt: string;
  }
>;

/**
 * On `run-<run id>`, appended with "stream must not exist" before the payload of a delivery without
 * a run is removed: the dispatcher's RunCreated for it then conflicts and the delivery is parked
 * `payload_removed`, so no run is ever made from a removed payload (and a run made first keeps it:
 * this event then conflicts instead).
 */
export type RunWithheld = Event<
  'RunWithheld',
  {
    readonly runId: string;
    readonly deliveryId: string;
    readonly reason: 'payload_removed';
    readonly withheldAt: string;
  }
>;

/** A run stream holds one of them, first: the run, or why there never will be one. */
export type RunEvent = RunCreated | RunWithheld;

/** A source event that can never become a run, parked with its error instead of being dropped. */
export type DispatchParked = Event<
  'DispatchParked',
  {
    readonly sourceEventId: string;
    readonly sourceStream: string;
    readonly sourceType: string;
    /** The delivery and routine it belongs to (absent in events written before they were recorded). */
    readonly deliveryId?: string;
    readonly routineId?: string;
    readonly error: string;
    readonly parkedAt: string;
  }
>;
