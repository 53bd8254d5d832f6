import { Inject, Injectable, type DynamicModule, type OnApplicationBootstrap } from '@nestjs/common';
import { CommandFactory, CommandRunnerService, InjectCommander } from 'nest-commander';
import { CLI_CONTEXT, ExitCode, type CliContext } from './cli.context';
import { CliFailure, UsageError } from './cli.errors';

/** The part of commander's Command this file configures (commander itself is nest-commander's copy). */
interface CommanderCommand {
  readonly commands: readonly CommanderCommand[];
  name(name: string): unknown;
  description(text: string): unknown;
  exitOverride(): unknown;
  showHelpAfterError(message: string): unknown;
  configureOutput(output: { writeOut(text: string): void; writeErr(text: string): void }): unknown;
}

/** commander's own errors (unknown option, missing argument, --help) carry a `commander.*` code. */
function isCommanderError(error: unknown): error is Error & { code: string; exitCode: number } {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('commander.');
}

/**
 * Once nest-commander has built the command tree: every command (not only the root) throws
 * instead of calling process.exit, and writes through the context. Usage errors then become exit
 * code 2 in one place (handleCliError), in the process and in tests alike.
 */
@Injectable()
export class CommanderSetup implements OnApplicationBootstrap {
  constructor(
    @InjectCommander() private readonly root: CommanderCommand,
    @Inject(CLI_CONTEXT) private readonly context: CliContext,
  ) {}

  onApplicationBootstrap(): void {
    this.root.name('wts');
    this.root.description(
      "Operator tools of the webhook trigger service: replay, tail, show, rebuild-read-models, rotate-encryption-key, erase. Configured by the services' environment (DATA_DIR, EVENTSTORE_CONNECTION_STRING, KAFKA_BROKERS, DATABASE_URL, SECRETS_ENCRYPTION_KEY).",
    );
    const configure = (command: CommanderCommand): void => {
      command.exitOverride();
      command.showHelpAfterError('(add --help for usage)');
      command.configureOutput({
        writeOut: (text) => void this.context.stdout.write(text),
        writeErr: (text) => void this.context.stderr.write(text),
      });
      command.commands.forEach(configure);
    };
    configure(this.root);
  }
}

/** Maps what a command threw to a message on stderr and an exit code. */
export function handleCliError(context: CliContext): (error: Error) => void {
  return (error) => {
    if (isCommanderError(error)) {
      // commander printed its message already; --help and --version end with code 0.
      context.exitCode = error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
      return;
    }
    if (error instanceof UsageError) {
      context.stderr.write(`error: ${error.message}\n(add --help for usage)\n`);
      context.exitCode = ExitCode.usage;
      return;
    }
    context.stderr.write(`error: ${error instanceof CliFailure ? error.message : (error.stack ?? error.message)}\n`);
    context.exitCode = ExitCode.failure;
  };
}

export function cliRunOptions(context: CliContext): NonNullable<Parameters<typeof CommandFactory.run>[1]> {
  return { logger: false, cliName: 'wts', serviceErrorHandler: handleCliError(context) };
}

/**
 * Runs one command line in this process (what main.ts does through CommandFactory.run, with
 * argv given): used by the integration tests. Returns the exit code.
 */
export async function runCli(rootModule: DynamicModule, argv: readonly string[], context: CliContext): Promise<number> {
  const app = await CommandFactory.createWithoutRunning(rootModule, cliRunOptions(context));
  try {
    await app.get(CommandRunnerService).run(['node', 'wts', ...argv]);
  } finally {
    await app.close();
  }
  return context.exitCode;
}
