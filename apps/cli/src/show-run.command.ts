import { Inject } from '@nestjs/common';
import { Streams } from '@wts/contracts';
import { isWellFormedId } from '@wts/domain';
import { CommandRunner, SubCommand } from 'nest-commander';
import { CLI_CONTEXT, type CliContext } from './cli.context';
import { UsageError } from './cli.errors';
import { showStream } from './show-stream';

@SubCommand({ name: 'run', arguments: '<run_id>', description: 'print the run-<id> stream (RunCreated) as JSON' })
export class ShowRunCommand extends CommandRunner {
  constructor(@Inject(CLI_CONTEXT) private readonly context: CliContext) {
    super();
  }

  async run([runId]: string[]): Promise<void> {
    if (!isWellFormedId('run', runId)) throw new UsageError([`not a run id: "${runId}" (expected run_…)`]);
    await showStream(
      this.context,
      Streams.run(runId),
      `no run ${runId} in the event store (the dispatcher creates it after the delivery is accepted)`,
    );
  }
}
