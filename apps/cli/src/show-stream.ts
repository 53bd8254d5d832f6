import { PayloadReader, type PayloadLookup } from '@wts/application';
import { Streams, upcastEvent, type RunCreated } from '@wts/contracts';
import { isWellFormedId, runInitialMessage } from '@wts/domain';
import { formatPosition, type RecordedEvent } from '@wts/event-store';
import { CliCommand } from './cli.command';
import type { CliContext } from './cli.context';
import { CliFailure, UsageError } from './cli.errors';
import { terminalSafeJson } from './event-line.format';
import { withStore } from './store.session';

/** A stored event as `show` prints it (JSON-friendly: bigints as strings, times as ISO). */
export function eventAsJson(event: RecordedEvent): Record<string, unknown> {
  return {
    position: formatPosition(event.position),
    revision: event.revision.toString(),
    event_id: event.id,
    type: event.type,
    created_at: event.createdAt.toISOString(),
    metadata: event.metadata,
    data: event.data,
  };
}

/**
 * Reads one stream and prints it as pretty JSON: `{stream, events: [...], payload}`. The payload,
 * kept apart from the events, is read from the store: `{state: "kept", format, text}` (untrusted
 * text inside a JSON string: never interpreted), or `{state: "expired" | "erased", removed_at}`;
 * a run's also shows its `initial_message`, framed as the run is. Terminal-unsafe characters are
 * escaped. An empty stream is "not found" (exit code 1).
 */
export async function showStream(context: CliContext, streamId: string, notFound: string): Promise<void> {
  const shown = await withStore(context, async ({ store }) => {
    const events = await store.readStream(streamId);
    const first = events[0] ? upcastEvent(events[0]) : undefined;
    const data = first?.data as Partial<RunCreated['data']> | undefined;
    const lookup = typeof data?.deliveryId === 'string' ? await new PayloadReader(store).lookupOne(data.deliveryId) : undefined;
    return { events, payload: lookup && payloadAsJson(lookup, first?.type === 'RunCreated' ? (data as RunCreated['data']) : undefined) };
  });
  if (shown.events.length === 0) throw new CliFailure(notFound);
  const printed = { stream: streamId, events: shown.events.map(eventAsJson), ...(shown.payload ? { payload: shown.payload } : {}) };
  context.stdout.write(`${terminalSafeJson(printed)}\n`);
}

function payloadAsJson(lookup: PayloadLookup, run: RunCreated['data'] | undefined): Record<string, unknown> {
  if (lookup.state !== 'kept') return { state: lookup.state, removed_at: lookup.removedAt.toISOString() };
  const { payload } = lookup;
  const text = payload.format === 'json' ? payload.json : payload.text;
  return { state: 'kept', format: payload.format, text, ...(run ? { initial_message: runInitialMessage(run, payload) } : {}) };
}

/** What `show` can print: the stream of an id of each kind, and what is said when it is empty. */
const SHOWN = {
  delivery: { expected: 'dlv_…', stream: Streams.delivery, notFound: (id: string) => `no delivery ${id} in the event store` },
  run: {
    expected: 'run_…',
    stream: Streams.run,
    notFound: (id: string) => `no run ${id} in the event store (the dispatcher creates it after the delivery is accepted)`,
  },
} as const;

/** `show <kind> <id>`: a well-formed id of the kind (else a usage error), then its stream. */
export abstract class ShowStreamCommand extends CliCommand {
  protected abstract readonly kind: keyof typeof SHOWN;

  async run([id]: string[]): Promise<void> {
    const shown = SHOWN[this.kind];
    if (!isWellFormedId(this.kind, id)) throw new UsageError([`not a ${this.kind} id: "${id}" (expected ${shown.expected})`]);
    await showStream(this.context, shown.stream(id), shown.notFound(id));
  }
}
