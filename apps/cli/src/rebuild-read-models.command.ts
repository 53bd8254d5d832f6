import { PROJECTED_PREFIXES, READ_MODEL_PROJECTION, toProjectionChanges } from '@wts/application';
import { START_POSITION, formatPosition, type EventStore, type GlobalPosition } from '@wts/event-store';
import { openReadModelStore } from '@wts/platform';
import type { ProjectionChange, ReadModelStore } from '@wts/read-models';
import { Command } from 'nest-commander';
import { CommandOptions, flag, json, OPERATOR } from './command-options.decorator';
import { CliCommand } from './cli.command';
import { ExitCode } from './cli.context';
import { CliFailure, UsageError, describeError } from './cli.errors';
import { replayProgress } from './replay.progress';
import { commandLineOperator, recordOperatorAction } from './operator-action.recorder';
import { withStore } from './store.session';

interface RawRebuildOptions {
  readonly yes?: boolean;
  readonly operator?: string;
  readonly json?: boolean;
}

interface RebuildSummary {
  readonly events: number;
  /** Rows this command wrote, per kind (the live projector may have written some batches instead). */
  readonly rows: Readonly<Record<ProjectionChange['kind'], number>>;
  readonly checkpoint: string | null;
  readonly interrupted: boolean;
}

const BATCH = 1000;

/**
 * `rebuild-read-models --yes`: empties the projected listings (deliveries, runs, parked, the audit
 * trail's entries and webhook routines; rejected attempts, replay counts and denied admin attempts
 * are not events and stay) and projects them again from the event store,
 * with a progress bar. Safe while the services run: every batch is a compare-and-set on the
 * projection's checkpoint, so whichever of this command and the live projector writes a batch
 * first wins it and the other goes on from there — nothing is projected twice or left out.
 */
@Command({
  name: 'rebuild-read-models',
  description: 'rebuild the listings in the read-model database (SQLite or DATABASE_URL) from the event store',
})
@CommandOptions(flag('--yes', 'confirm: the listings are emptied, then rebuilt'), OPERATOR, json('print the summary as one JSON object'))
export class RebuildReadModelsCommand extends CliCommand {
  async run(_params: string[], options: RawRebuildOptions): Promise<void> {
    if (options.yes !== true) {
      throw new UsageError(['rebuilding empties the listings first (they fill again as it runs): confirm with --yes']);
    }
    const operator = commandLineOperator(this.context.env, options.operator);
    await withStore(this.context, async ({ store, config }) => {
      let opened;
      try {
        opened = await openReadModelStore(config);
      } catch (error) {
        throw new CliFailure(`cannot open the read-model database: ${describeError(error)}`, { cause: error });
      }
      try {
        this.context.stderr.write(`rebuild-read-models: ${opened.description}\n`);
        await recordOperatorAction(store, operator, 'rebuild_read_models', { database: config.database.url ? 'postgresql' : 'sqlite' });
        const summary = await this.rebuild(store, opened.readModels);
        this.report(summary, options.json === true);
        if (summary.interrupted) this.context.exitCode = ExitCode.interrupted;
      } finally {
        await opened.readModels.close().catch(() => undefined);
      }
    });
  }

  private async rebuild(store: EventStore, readModels: ReadModelStore): Promise<RebuildSummary> {
    const head = (await store.headPosition()) ?? START_POSITION;
    await readModels.reset(READ_MODEL_PROJECTION);
    const progress = replayProgress(this.context, 'rebuild', { start: 0n, end: head.commit });
    const rows: Record<ProjectionChange['kind'], number> = {
      delivery: 0,
      run: 0,
      parked: 0,
      webhook_routine: 0,
      audit: 0,
      payload_removal: 0,
    };
    const written = (): number => Object.values(rows).reduce((sum, count) => sum + count, 0);
    let events = 0;
    let checkpoint: GlobalPosition | undefined;
    try {
      while (!this.context.signal.aborted) {
        const batch = await store.readAll({ after: checkpoint, limit: BATCH, filter: { streamPrefixes: PROJECTED_PREFIXES } });
        if (batch.length === 0) break;
        const changes = batch.flatMap((event) => toProjectionChanges(event));
        const to = batch[batch.length - 1].position;
        if (await readModels.commit(READ_MODEL_PROJECTION, changes, checkpoint, to)) {
          for (const change of changes) rows[change.kind] += 1;
          events += batch.length;
          checkpoint = to;
        } else {
          // The live projector wrote this stretch first: go on from where it is.
          checkpoint = await readModels.loadCheckpoint(READ_MODEL_PROJECTION);
        }
        progress.update({ scanned: events, replayed: written(), position: checkpoint ?? START_POSITION });
      }
      // Read to the end: the events past the last projected one (idempotency indexes) are not
      // projected, so the bar is brought to the head it measures against (100 %).
      if (!this.context.signal.aborted) progress.update({ scanned: events, replayed: written(), position: head });
    } finally {
      progress.stop();
    }
    return { events, rows, checkpoint: checkpoint ? formatPosition(checkpoint) : null, interrupted: this.context.signal.aborted };
  }

  private report(summary: RebuildSummary, json: boolean): void {
    if (json) {
      this.context.stdout.write(`${JSON.stringify(summary)}\n`);
      return;
    }
    const { rows } = summary;
    // Named only when there were any: stores from before payloads were removable read as they always did.
    const removals = rows.payload_removal > 0 ? `, ${rows.payload_removal} payload removals` : '';
    this.context.stdout.write(
      `${summary.interrupted ? 'interrupted' : 'rebuilt'}: ${summary.events} events projected (${rows.delivery} deliveries, ${rows.run} runs, ${rows.parked} parked, ${rows.audit} audit entries, ${rows.webhook_routine} webhook routines${removals}), checkpoint ${summary.checkpoint ?? 'none (empty store)'}\n`,
    );
  }
}
