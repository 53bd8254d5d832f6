import { PayloadReader } from '@wts/application';
import { StreamCategories } from '@wts/contracts';
import { formatPosition, type EventStore, type GlobalPosition } from '@wts/event-store';
import { Command } from 'nest-commander';
import { CommandOptions, flag, repeatable, value } from './command-options.decorator';
import { CliCommand } from './cli.command';
import { CliFailure, UsageError, describeError } from './cli.errors';
import { CATEGORY_NAMES, categoryPrefixes, storeFilter } from './event-selection';
import { formatEventLine } from './event-line.format';
import { withStore } from './store.session';

interface RawTailOptions {
  readonly fromStart?: boolean;
  readonly category?: readonly string[];
  readonly limit?: string;
}

interface TailPlan {
  readonly fromStart: boolean;
  readonly prefixes: readonly string[];
  readonly limit: number | undefined;
}

function parseTailOptions(raw: RawTailOptions): TailPlan {
  const problems: string[] = [];
  const categories = categoryPrefixes(raw.category ?? []);
  for (const name of categories.unknown) problems.push(`unknown --category "${name}" (known: ${CATEGORY_NAMES.join(', ')})`);
  let limit: number | undefined;
  if (raw.limit !== undefined) {
    limit = /^\d+$/.test(raw.limit) ? Number(raw.limit) : Number.NaN;
    if (!Number.isSafeInteger(limit) || limit < 1) problems.push(`--limit must be a positive integer, got "${raw.limit}"`);
  }
  if (problems.length > 0) throw new UsageError(problems);
  return { fromStart: raw.fromStart === true, prefixes: categories.prefixes, limit };
}

/**
 * `tail`: follows $all from the head (or from the start), one line per event, until --limit
 * events were printed or SIGINT. Lines never hold a secret (events carry digests, shortened here)
 * and mark payloads as untrusted.
 */
@Command({ name: 'tail', description: 'follow new events, one line each (position, stream, type, event id, compact data)' })
@CommandOptions(
  flag('--from-start', 'start at the first event instead of the head'),
  repeatable('--category <name>', `only this stream category (repeatable): ${CATEGORY_NAMES.join(', ')}`),
  value('--limit <n>', 'stop after printing n events'),
)
export class TailCommand extends CliCommand {
  async run(_params: string[], options: RawTailOptions): Promise<void> {
    const plan = parseTailOptions(options);
    await withStore(this.context, async ({ store, description }) => {
      const after = plan.fromStart ? undefined : await store.headPosition();
      this.context.stderr.write(
        `tail: following ${description} ${after ? `after ${formatPosition(after)}` : 'from the start'}${plan.limit ? `, stopping after ${plan.limit} events` : ''}\n`,
      );
      await this.follow(store, plan, after);
    });
  }

  private async follow(store: EventStore, plan: TailPlan, after: GlobalPosition | undefined): Promise<void> {
    let printed = 0;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const payloads = new PayloadReader(store);
    const filter = storeFilter({ streams: [], categoryPrefixes: plan.prefixes });
    const subscription = store.subscribeToAll({ after, filter }, async (event) => {
      // Never stop the subscription from inside its handler: it waits for the handler to return.
      if (plan.limit !== undefined && printed >= plan.limit) return;
      printed += 1;
      // Today's deliveries keep their payload apart (one written before carries it in its event).
      const apart = event.type === 'DeliveryAccepted' && (event.data as { payload?: unknown }).payload === undefined;
      const payload = apart ? await payloads.lookupOne(event.streamId.slice(StreamCategories.delivery.length)) : undefined;
      this.context.stdout.write(`${formatEventLine(event, undefined, payload)}\n`);
      if (plan.limit !== undefined && printed >= plan.limit) finish();
    });
    const onAbort = (): void => finish();
    this.context.signal.addEventListener('abort', onAbort, { once: true });
    if (this.context.signal.aborted) finish();
    try {
      await Promise.race([
        finished,
        subscription.done.then(
          () => finish(),
          (error: unknown) => {
            throw new CliFailure(`the subscription failed after ${printed} events: ${describeError(error)}`, { cause: error });
          },
        ),
      ]);
    } finally {
      this.context.signal.removeEventListener('abort', onAbort);
      await subscription.stop();
    }
  }
}
