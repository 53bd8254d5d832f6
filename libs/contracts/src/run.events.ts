import type { RoutineMode, RoutineTool } from './catalog.events';
import type { Event } from './event.types';
import type { TriggerAccount } from './webhook.events';

export interface RoutineSnapshot {
  readonly name: string;
  readonly tools: readonly RoutineTool[];
  readonly instructions: string;
  readonly mode: RoutineMode;
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
     * The fixed, service-written message framing the payload as untrusted data. The payload itself
     * is stored once, in the delivery's DeliveryAccepted (schema version 2; see upcastEvent).
     */
    readonly initialMessage: string;
    readonly status: 'created';
    readonly createdAt: string;
  }
>;

export type RunEvent = RunCreated;

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
