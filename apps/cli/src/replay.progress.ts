import { formatPosition, type GlobalPosition } from '@wts/event-store';
import { SingleBar } from 'cli-progress';
import type { CliContext } from './cli.context';

export interface ProgressState {
  readonly scanned: number;
  readonly replayed: number;
  readonly position: GlobalPosition;
}

export interface ReplayProgress {
  update(state: ProgressState): void;
  stop(): void;
}

/** The range a replay walks through, in commit positions: the bar measures how far along it is. */
export interface PositionSpan {
  readonly start: bigint;
  readonly end: bigint;
}

const PLAIN_INTERVAL_MS = 2000;

/**
 * A cli-progress bar on stderr when stderr is a terminal; otherwise a plain line at most every
 * two seconds (logs and pipes get no control characters). stdout is left for the summary.
 */
export function replayProgress(context: CliContext, label: string, span: PositionSpan): ReplayProgress {
  const total = Math.max(1, Number(span.end - span.start));
  const fraction = (position: GlobalPosition): number => Math.min(total, Math.max(0, Number(position.commit - span.start)));
  if (context.progressTerminal) {
    const bar = new SingleBar({
      stream: context.progressTerminal,
      format: `${label} [{bar}] {percentage}% | read {scanned} | replayed {replayed} | at {position}`,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 50,
    });
    bar.start(total, 0, { scanned: 0, replayed: 0, position: '-' });
    return {
      update: (state) =>
        bar.update(fraction(state.position), {
          scanned: state.scanned,
          replayed: state.replayed,
          position: formatPosition(state.position),
        }),
      stop: () => bar.stop(),
    };
  }
  let last = Date.now();
  return {
    update: (state) => {
      const now = Date.now();
      if (now - last < PLAIN_INTERVAL_MS) return;
      last = now;
      const percent = Math.floor((100 * fraction(state.position)) / total);
      context.stderr.write(
        `${label}: read ${state.scanned} events, replayed ${state.replayed}, at ${formatPosition(state.position)} (${percent}%)\n`,
      );
    },
    stop: () => undefined,
  };
}
