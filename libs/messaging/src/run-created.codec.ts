import type { RunCreated } from '@wts/contracts';
import { runInitialMessage } from '@wts/domain';
import type { PayloadLookup } from '@wts/application';

/** What a `RunCreated` message on routines.runs.v1 holds: its value and the schema version of its shape. */
export interface RunCreatedWire {
  readonly value: string;
  readonly schemaVersion: number;
}

/**
 * A run as consumers of routines.runs.v1 have always read it: schema version 2, with its framed
 * `initialMessage` in place of the stored `framing` (framed here, byte-identical to what the run
 * once stored). Once its payload is removed: version 3, `initialMessage` null and the
 * `payloadState` (expired or erased) with `payloadRemovedAt` — a consumer that reads only version 2
 * waits for an upgrade rather than misreading a null message.
 */
export function runCreatedWire(run: RunCreated['data'], lookup: PayloadLookup | undefined): RunCreatedWire {
  const removed = run.framing !== null && lookup?.state !== 'kept';
  const message = removed ? null : run.framing === null ? (run.legacyInitialMessage ?? null) : runInitialMessage(run, keptPayload(lookup));
  const wire: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(run)) {
    if (field === 'legacyInitialMessage') continue;
    if (field !== 'framing') {
      wire[field] = value;
      continue;
    }
    wire.initialMessage = message;
    if (removed) Object.assign(wire, removalFields(lookup));
  }
  return { value: JSON.stringify(wire), schemaVersion: removed ? 3 : 2 };
}

/** Whether a run's message is framed from its payload (a run written before stored its message). */
export function needsPayload(run: RunCreated['data']): boolean {
  return run.framing !== null;
}

/** A payload removed, or absent (expired past the store's own retention): what the message says of it. */
function removalFields(lookup: PayloadLookup | undefined): { payloadState: string; payloadRemovedAt: string | null } {
  if (lookup === undefined || lookup.state === 'kept') return { payloadState: 'expired', payloadRemovedAt: null };
  return { payloadState: lookup.state, payloadRemovedAt: lookup.removedAt.toISOString() };
}

function keptPayload(lookup: PayloadLookup | undefined): Extract<PayloadLookup, { state: 'kept' }>['payload'] {
  if (lookup?.state !== 'kept') throw new Error('the payload is not kept');
  return lookup.payload;
}
