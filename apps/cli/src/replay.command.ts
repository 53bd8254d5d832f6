import { DispatchDeliveryUseCase, ParkDispatchUseCase, systemClock } from '@wts/application';
import { formatPosition, type EventStore, type GlobalPosition, type RecordedEvent } from '@wts/event-store';
import { KafkaRetentionRefusedError, kafkaTopicNames, type KafkaConnection, type MessagingLogger } from '@wts/messaging';
import { Command } from 'nest-commander';
import { CommandOptions, flag, json, OPERATOR, repeatable, value } from './command-options.decorator';
import { CliCommand } from './cli.command';
import { ExitCode } from './cli.context';
import { CliFailure, UsageError, describeError } from './cli.errors';
import { CATEGORY_NAMES, scanSelection } from './event-selection';
import {
  DispatcherReplayTarget,
  KafkaReplayTarget,
  dispatcherClassifier,
  emptyCounts,
  kafkaClassifier,
  type ReplayClassifier,
  type ReplayCounts,
  type ReplayTarget,
} from './replay-targets';
import { parseReplayOptions, type RawReplayOptions, type ReplayPlan } from './replay.options';
import { replayProgress } from './replay.progress';
import { ReplayTally, formatReplayReport, type ReplayReport } from './replay.report';
import { commandLineOperator, recordOperatorAction } from './operator-action.recorder';
import { cliConfig, withStore } from './store.session';

/**
 * `replay`: re-sends stored events to Kafka (as the relay would) or straight to the dispatcher's
 * use case. Reads $all in batches up to the head as it was at start; nothing in the store is
 * changed except runs the dispatcher creates (or parks) for deliveries that have none yet.
 */
const KAFKA_NEEDED =
  '--to kafka needs KAFKA_BROKERS (host:port[,host:port…]) in the environment (and KAFKA_SASL_* where the brokers ask for credentials)';

@Command({
  name: 'replay',
  description: 'replay stored events to Kafka or to the run dispatcher (idempotent; --dry-run to preview)',
})
@CommandOptions(
  repeatable('--stream <id>', 'a stream by exact name, e.g. delivery-dlv_… (repeatable)'),
  repeatable('--category <name>', `a stream category (repeatable): ${CATEGORY_NAMES.join(', ')}`),
  value('--from-position <position>', 'first commit position, inclusive (42 or 42/42)'),
  value('--after-position <position>', 'start strictly after this position, exclusive (the "resume with" value of an interrupted replay)'),
  value('--to-position <position>', 'last commit position, inclusive'),
  value('--since <time>', 'events created at or after this ISO 8601 time (2025-01-31 or 2025-01-31T08:00:00Z)'),
  value('--until <time>', 'events created before this ISO 8601 time (exclusive)'),
  value('--to <target>', "where to replay: kafka (the relay's topics, keys and headers) or dispatcher (DeliveryAccepted → runs)"),
  flag('--dry-run', 'list what would be replayed (counts per type, first/last position); send nothing'),
  OPERATOR,
  json('print the summary as one JSON object'),
  value('--batch-size <n>', 'events read per batch (default 500)'),
  value('--topic-prefix <prefix>', 'Kafka topic-name prefix, for isolated environments (default: none, the production topics)'),
)
export class ReplayCommand extends CliCommand {
  async run(_params: string[], options: RawReplayOptions): Promise<void> {
    const plan = parseReplayOptions(options);
    const kafka = cliConfig(this.context).kafka;
    if (plan.target === 'kafka' && !plan.dryRun && !kafka) throw new UsageError([KAFKA_NEEDED]);
    const operator = commandLineOperator(this.context.env, options.operator);
    const report = await withStore(this.context, async (session) => {
      // A dry run changes nothing: only a replay that sends is on the audit trail.
      if (!plan.dryRun) await recordOperatorAction(session.store, operator, 'replay', replayDetail(plan));
      return this.replay(session.store, plan, kafka);
    });
    this.context.stdout.write(plan.json ? `${JSON.stringify(report)}\n` : formatReplayReport(report));
    if (report.interrupted) this.context.exitCode = ExitCode.interrupted;
  }

  private async replay(store: EventStore, plan: ReplayPlan, kafka: KafkaConnection | undefined): Promise<ReplayReport> {
    const classifier: ReplayClassifier = plan.target === 'kafka' ? kafkaClassifier : dispatcherClassifier;
    const tally = new ReplayTally(classifier);
    const counts = emptyCounts();
    const head = await store.headPosition();
    const upTo = head && plan.selection.toPosition && plan.selection.toPosition.commit < head.commit ? plan.selection.toPosition : head;
    if (!upTo) return tally.report({ dryRun: plan.dryRun, counts, interrupted: false });

    const target = plan.dryRun ? undefined : await this.openTarget(plan, store, kafka);
    const start = (plan.selection.fromPosition ?? plan.selection.afterPosition)?.commit ?? 0n;
    const progress = replayProgress(this.context, plan.dryRun ? 'dry run' : `replay to ${plan.target}`, { start, end: upTo.commit });
    let scanned = 0;
    let done: GlobalPosition | undefined;
    let interrupted = false;
    try {
      for await (const batch of scanSelection(store, plan.selection, { batchSize: plan.batchSize, upTo })) {
        // The embedded store answers synchronously: let signals (SIGINT) and timers in between batches.
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.context.signal.aborted) {
          interrupted = true;
          break;
        }
        if (target) await this.replayBatch(target, batch.events, counts, done);
        tally.add(batch.events);
        scanned += batch.scanned;
        done = batch.lastPosition;
        progress.update({ scanned, replayed: counts.replayed, position: batch.lastPosition });
      }
      // A filtered read ends at the last matching event: the range up to the head is done all the same.
      if (!interrupted) progress.update({ scanned, replayed: counts.replayed, position: upTo });
    } finally {
      progress.stop();
      await target?.close();
    }
    return tally.report({ dryRun: plan.dryRun, counts, interrupted, resumeAfter: interrupted ? done : undefined });
  }

  private async replayBatch(
    target: ReplayTarget,
    events: readonly RecordedEvent[],
    counts: ReplayCounts,
    done: GlobalPosition | undefined,
  ): Promise<void> {
    try {
      await target.replay(events, counts);
    } catch (error) {
      const resume = done
        ? ` Everything up to ${formatPosition(done)} was replayed; resume with --after-position ${formatPosition(done)}.`
        : '';
      throw new CliFailure(`replay to ${target.name} failed: ${describeError(error)}.${resume}`, { cause: error });
    }
  }

  private async openTarget(plan: ReplayPlan, store: EventStore, kafka: KafkaConnection | undefined): Promise<ReplayTarget> {
    if (plan.target === 'dispatcher')
      return new DispatcherReplayTarget(new DispatchDeliveryUseCase(store, systemClock, new ParkDispatchUseCase(store, systemClock)));
    if (!kafka) throw new UsageError([KAFKA_NEEDED]);
    try {
      const retention = cliConfig(this.context).limits.payloadRetentionSeconds;
      const topics = kafkaTopicNames(plan.topicPrefix);
      return await KafkaReplayTarget.connect(store, kafka, topics, this.kafkaLogger(), undefined, retention);
    } catch (error) {
      if (error instanceof KafkaRetentionRefusedError) throw new CliFailure(`replay to kafka refused: ${error.message}`, { cause: error });
      throw new CliFailure(`cannot reach Kafka at ${kafka.brokers.join(',')}: ${describeError(error)}`, { cause: error });
    }
  }

  /** kafkajs' own errors, one line each on stderr (its retries are chatty; warnings stay quiet). */
  private kafkaLogger(): MessagingLogger {
    const write = (level: string, message: string, fields: object): void => {
      const detail = (fields as { err?: unknown; error?: unknown }).err ?? (fields as { error?: unknown }).error;
      this.context.stderr.write(`kafka ${level}: ${message}${detail === undefined ? '' : ` (${String(detail)})`}\n`);
    };
    return { info: () => undefined, warn: () => undefined, error: (fields, message) => write('error', message, fields) };
  }
}

/** What a replay was asked to do, for the audit trail (the options as given; never a credential). */
function replayDetail(plan: ReplayPlan): Record<string, string | number | boolean | null> {
  const { selection } = plan;
  const position = (value: GlobalPosition | undefined): string | null => (value ? formatPosition(value) : null);
  return {
    to: plan.target,
    streams: selection.streams.join(',') || null,
    categories: selection.categoryPrefixes.join(',') || null,
    from_position: position(selection.fromPosition),
    after_position: position(selection.afterPosition),
    to_position: position(selection.toPosition),
    since: selection.since?.toISOString() ?? null,
    until: selection.until?.toISOString() ?? null,
    topic_prefix: plan.topicPrefix || null,
  };
}
