/**
 * Runs the CLI in this process: the real CliModule and command tree (nest-commander parsing,
 * exit-code mapping), with output captured and the environment given, not inherited.
 */
import 'reflect-metadata';
import { ExitCode, type CliContext } from '../src/cli.context';
import { CliModule } from '../src/cli.module';
import { runCli } from '../src/cli.runner';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function cli(
  argv: readonly string[],
  env: Record<string, string>,
  signal: AbortSignal = new AbortController().signal,
  progressTerminal?: NodeJS.WritableStream,
): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const context: CliContext = {
    env: { LOG_LEVEL: 'silent', ...env },
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    ...(progressTerminal === undefined ? {} : { progressTerminal }),
    signal,
    exitCode: ExitCode.ok,
  };
  const code = await runCli(CliModule.forRoot(context), argv, context);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** The one JSON object `replay --json` prints. */
export interface ReplaySummary {
  readonly target: string;
  readonly dry_run: boolean;
  readonly interrupted: boolean;
  readonly selected: number;
  readonly would_replay?: number;
  readonly replayed: number;
  readonly created: number;
  readonly already_created: number;
  readonly parked: number;
  readonly skipped: number;
  readonly first_position: string | null;
  readonly last_position: string | null;
  readonly by_type: Record<string, { selected: number; replay: number }>;
}

export function summaryOf(result: CliResult): ReplaySummary {
  if (result.code !== 0) throw new Error(`replay exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as ReplaySummary;
}
