import type { ServiceEvent } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';

/** `event` as the store records it: `revision` of `streamId`, at `position` in $all (its id made from the position). */
export function recordedAt(position: number, streamId: string, revision: number, event: ServiceEvent, createdAt: string): RecordedEvent {
  return {
    id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
    streamId,
    revision: BigInt(revision),
    position: { commit: BigInt(position), prepare: BigInt(position) },
    type: event.type,
    data: event.data,
    metadata: {},
    createdAt: new Date(createdAt),
  };
}
