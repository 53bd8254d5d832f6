import { formatPosition, type RecordedEvent } from '@wts/event-store';
import type { CliContext } from './cli.context';
import { CliFailure } from './cli.errors';
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
 * Reads one stream and prints it as pretty JSON: `{stream, events: [...]}`. Payloads are printed
 * as stored (untrusted text inside JSON strings: never interpreted); terminal-unsafe characters
 * are escaped. An empty stream is "not found" (exit code 1).
 */
export async function showStream(context: CliContext, streamId: string, notFound: string): Promise<void> {
  const events = await withStore(context, ({ store }) => store.readStream(streamId));
  if (events.length === 0) throw new CliFailure(notFound);
  context.stdout.write(`${terminalSafeJson({ stream: streamId, events: events.map(eventAsJson) })}\n`);
}
