import {
  ErasureJob,
  ErasureService,
  PayloadReader,
  PayloadRemover,
  catchUpReadModels,
  cryptoRandom,
  erasureCandidatesOf,
  systemClock,
  toErasureView,
  type ErasureRunOutcome,
  type ErasureView,
} from '@wts/application';
import { isRejection, type ErasureState } from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import { KafkaRunsWindowSource } from '@wts/messaging';
import { openReadModelStore } from '@wts/platform';
import type { ReadModelStore } from '@wts/read-models';
import { Command } from 'nest-commander';
import { CommandOptions, json, OPERATOR, repeatable, value } from './command-options.decorator';
import { CliCommand } from './cli.command';
import { ExitCode } from './cli.context';
import { CliFailure, UsageError, describeError } from './cli.errors';
import { parseEraseOptions, type RawEraseOptions } from './erase.options';
import { commandLineOperator } from './operator-action.recorder';
import { replayProgress } from './replay.progress';
import { withStore } from './store.session';

/**
 * `erase`: erasure on request from the command line — the API's selectors as flags. Records the
 * request as the operator (ErasureRequested carries them as its actor: on the audit trail as
 * `erase_payloads`), then runs the erasure in this process to its end with a progress bar. Killed
 * mid-way, nothing is half-erased: a dispatcher's runner (or `erase --resume era_…`) goes on from
 * the last recorded window. Exit 0 when done, 1 when failed, 2 on bad usage, 130 when interrupted.
 */
@Command({ name: 'erase', description: 'erase payloads (by delivery, routine, trigger account, time received, contents) from every file' })
@CommandOptions(
  repeatable('--delivery-id <id>', 'a delivery by id, dlv_… (repeatable, up to 1000)'),
  value('--routine-id <id>', "a routine's deliveries (rtn_…)"),
  value('--trigger-account <email>', 'deliveries triggered as this account (email, any case)'),
  value('--received-after <time>', 'received at or after this RFC 3339 time (2026-01-31T08:00:00Z)'),
  value('--received-before <time>', 'received before this RFC 3339 time (exclusive)'),
  value('--contains <text>', 'payloads containing this text, any case (3–512 characters; never recorded)'),
  value('--resume <erasure_id>', 'run an unfinished erasure (era_…) to its end instead of asking for a new one'),
  OPERATOR,
  json('print the answer as one JSON object (as GET /admin/erasures/{id})'),
)
export class EraseCommand extends CliCommand {
  async run(_params: string[], options: RawEraseOptions): Promise<void> {
    const plan = parseEraseOptions(options);
    const operator = commandLineOperator(this.context.env, options.operator);
    await withStore(this.context, async ({ store, config }) => {
      const readModels = await openReadModels(config);
      try {
        // The window routines.runs.v1 is created with for this payload retention (the topic is not read from here).
        const window =
          config.kafka &&
          new KafkaRunsWindowSource({ connection: config.kafka, payloadRetentionSeconds: config.limits.payloadRetentionSeconds });
        const expiry = window ? window.copiesExpireBy : undefined;
        let erasureId: string;
        if (plan.kind === 'request') {
          const service = new ErasureService({ store, clock: systemClock, random: cryptoRandom, kafkaCopiesExpireBy: expiry });
          const requested = await service.request(plan.selectors, { actor: operator });
          if (isRejection(requested)) throw new UsageError([requested.detail], 'invalid selection');
          erasureId = requested.erasure_id;
          this.context.stderr.write(`erase: ${erasureId} recorded; running it here\n`);
        } else erasureId = plan.erasureId;
        const outcome = await this.erase(store, readModels, erasureId);
        if (outcome.kind === 'not_found') throw new CliFailure(`no erasure ${erasureId}`);
        this.report(toErasureView(outcome.state, expiry), outcome.state, plan.json);
        if (outcome.kind === 'stopped') this.context.exitCode = ExitCode.interrupted;
        else if (outcome.state.finished?.status === 'failed') this.context.exitCode = ExitCode.failure;
      } finally {
        await readModels.close().catch(() => undefined);
      }
    });
  }

  private async erase(store: EventStore, readModels: ReadModelStore, erasureId: string): Promise<ErasureRunOutcome> {
    const job = new ErasureJob({
      store,
      remover: new PayloadRemover(store, systemClock, cryptoRandom),
      reader: new PayloadReader(store),
      candidates: erasureCandidatesOf(readModels),
      // The services may be stopped: bring the read models up to the request here.
      readModelsAt: catchUpReadModels(store, readModels),
      clock: systemClock,
      random: cryptoRandom,
    });
    // The selection's size is not known ahead: the bar counts windows, and fills when the erasure ends.
    const progress = replayProgress(this.context, `erase ${erasureId}`, { start: 0n, end: 1n });
    try {
      return await job.run(erasureId, {
        signal: this.context.signal,
        onProgress: (state) =>
          progress.update({
            scanned: state.scanned,
            replayed: state.erased,
            position: { commit: state.finished ? 1n : 0n, prepare: 0n },
          }),
      });
    } catch (error) {
      throw new CliFailure(
        `erasure ${erasureId} stopped: ${describeError(error)}. Every recorded window stands; a dispatcher resumes it, or run erase --resume ${erasureId}`,
        { cause: error },
      );
    } finally {
      progress.stop();
    }
  }

  private report(view: ErasureView, state: ErasureState, json: boolean): void {
    if (state.finished?.error !== undefined) this.context.stderr.write(`erase: ${view.erasure_id} failed: ${state.finished.error}\n`);
    if (json) {
      this.context.stdout.write(`${JSON.stringify(view)}\n`);
      return;
    }
    const expiry = view.kafka_copies_expire_by ? `; Kafka copies gone by ${view.kafka_copies_expire_by}` : '';
    this.context.stdout.write(`${view.erasure_id} ${view.status}: ${view.erased} erased of ${view.selected} selected${expiry}\n`);
  }
}

async function openReadModels(config: Parameters<typeof openReadModelStore>[0]): Promise<ReadModelStore> {
  try {
    return (await openReadModelStore(config)).readModels;
  } catch (error) {
    throw new CliFailure(`cannot open the read-model database: ${describeError(error)}`, { cause: error });
  }
}
