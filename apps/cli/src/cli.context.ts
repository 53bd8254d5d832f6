/**
 * Everything a command touches outside itself: the environment, the output streams, the exit
 * code and a stop signal (SIGINT). main.ts wires the process; tests pass their own.
 */
export interface CliOutput {
  write(text: string): unknown;
}

export interface CliContext {
  /** Read through loadConfig only (DATA_DIR, EVENTSTORE_CONNECTION_STRING, KAFKA_BROKERS, …). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Results: summaries, event lines, JSON. */
  readonly stdout: CliOutput;
  /** Diagnostics, progress, errors. */
  readonly stderr: CliOutput;
  /** stderr when it is a terminal: progress bars draw there; absent → plain periodic lines. */
  readonly progressTerminal?: NodeJS.WritableStream;
  /** Aborted on SIGINT: long-running commands finish the batch in flight and report. */
  readonly signal: AbortSignal;
  /** Set by the commands and the error handler; main.ts hands it to the process. */
  exitCode: number;
}

export const CLI_CONTEXT = Symbol('CliContext');

/** Exit codes. */
export const ExitCode = {
  ok: 0,
  /** The command ran and failed: store unreachable, not found, broker refused. */
  failure: 1,
  /** The command line or the configuration is wrong: nothing was done. */
  usage: 2,
  /** Stopped by SIGINT before the end. */
  interrupted: 130,
} as const;

export function processCliContext(signal: AbortSignal): CliContext {
  return {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    progressTerminal: process.stderr.isTTY ? process.stderr : undefined,
    signal,
    exitCode: ExitCode.ok,
  };
}
