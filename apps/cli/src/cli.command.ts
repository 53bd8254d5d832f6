import { Inject } from '@nestjs/common';
import { CommandRunner } from 'nest-commander';
import { CLI_CONTEXT, type CliContext } from './cli.context';

/** A command of the CLI: it runs with the CLI's context (environment, output streams, interrupt signal), injected here once. */
export abstract class CliCommand extends CommandRunner {
  constructor(@Inject(CLI_CONTEXT) protected readonly context: CliContext) {
    super();
  }
}
