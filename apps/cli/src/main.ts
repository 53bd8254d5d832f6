import 'reflect-metadata';
import { CommandFactory } from 'nest-commander';
import { CliModule } from './cli.module';
import { ExitCode, processCliContext } from './cli.context';
import { cliRunOptions } from './cli.runner';

/**
 * `npm run cli -- <command>` (node dist/apps/cli/src/main.js). The first SIGINT asks a long
 * command to stop cleanly (replay reports where to resume, tail closes); a second one kills.
 */
async function main(): Promise<void> {
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  const context = processCliContext(abort.signal);
  await CommandFactory.run(CliModule.forRoot(context), cliRunOptions(context));
  process.exitCode = context.exitCode;
}

main().catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = ExitCode.failure;
});
