import { Inject } from '@nestjs/common';
import { Streams } from '@wts/contracts';
import { isWellFormedId } from '@wts/domain';
import { formatPosition, type RecordedEvent } from '@wts/event-store';
import { CommandRunner } from 'nest-commander';
import { CLI_CONTEXT, type CliContext } from './cli.context';
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
 * Reads one stream and prints it as pretty JSON: `{stream, events: [...]}`. Payloads are printed
 * as stored (untrusted text inside JSON strings: never interpreted); terminal-unsafe characters
 * are escaped. An empty stream is "not found" (exit code 1).
 */
export async function showStream(context: CliContext, streamId: string, notFound: string): Promise<void> {
  const events = await withStore(context, ({ store }) => store.readStream(streamId));
  if (events.length === 0) throw new CliFailure(notFound);
  context.stdout.write(`${terminalSafeJson({ stream: streamId, events: events.map(eventAsJson) })}\n`);
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
export abstract class ShowStreamCommand extends CommandRunner {
  protected abstract readonly kind: keyof typeof SHOWN;

  constructor(@Inject(CLI_CONTEXT) private readonly context: CliContext) {
    super();
  }

  async run([id]: string[]): Promise<void> {
    const shown = SHOWN[this.kind];
    if (!isWellFormedId(this.kind, id)) throw new UsageError([`not a ${this.kind} id: "${id}" (expected ${shown.expected})`]);
    await showStream(this.context, shown.stream(id), shown.notFound(id));
  }
}
