import { ExitCode } from './cli.context';

/** A wrong command line or configuration: exit code 2, nothing done. */
export class UsageError extends Error {
  readonly exitCode = ExitCode.usage;

  constructor(
    readonly problems: readonly string[],
    title?: string,
  ) {
    super(
      problems.length === 1
        ? `${title ? `${title}: ` : ''}${problems[0]}`
        : `${title ?? 'invalid options'}:\n  - ${problems.join('\n  - ')}`,
    );
    this.name = 'UsageError';
  }
}

/** The command could not do its work (store unreachable, not found, broker down): exit code 1. */
export class CliFailure extends Error {
  readonly exitCode = ExitCode.failure;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliFailure';
  }
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
