import { formatPosition, type GlobalPosition, type RecordedEvent } from '@wts/event-store';
import type { ReplayClassifier, ReplayCounts } from './replay-targets';

interface TypeTally {
  selected: number;
  toReplay: number;
}

/** Counts per event type and the first/last selected position; constant memory per type. */
export class ReplayTally {
  private readonly byType = new Map<string, TypeTally>();
  private first: GlobalPosition | undefined;
  private last: GlobalPosition | undefined;
  private selected = 0;
  private wouldReplay = 0;

  constructor(private readonly classifier: ReplayClassifier) {}

  add(events: readonly RecordedEvent[]): void {
    for (const event of events) {
      const tally = this.byType.get(event.type) ?? { selected: 0, toReplay: 0 };
      tally.selected += 1;
      this.selected += 1;
      if (this.classifier.accepts(event)) {
        tally.toReplay += 1;
        this.wouldReplay += 1;
      }
      this.byType.set(event.type, tally);
      this.first ??= event.position;
      this.last = event.position;
    }
  }

  get selectedCount(): number {
    return this.selected;
  }

  get wouldReplayCount(): number {
    return this.wouldReplay;
  }

  report(input: {
    readonly dryRun: boolean;
    readonly counts: ReplayCounts;
    readonly interrupted: boolean;
    readonly resumeAfter?: GlobalPosition;
  }): ReplayReport {
    const types = [...this.byType].sort(([a], [b]) => a.localeCompare(b));
    return {
      target: this.classifier.name,
      dry_run: input.dryRun,
      interrupted: input.interrupted,
      selected: this.selected,
      ...(input.dryRun ? { would_replay: this.wouldReplay } : {}),
      ...input.counts,
      ...(input.dryRun ? { skipped: this.selected - this.wouldReplay } : {}),
      first_position: this.first ? formatPosition(this.first) : null,
      last_position: this.last ? formatPosition(this.last) : null,
      ...(input.resumeAfter ? { resume_after: formatPosition(input.resumeAfter) } : {}),
      by_type: Object.fromEntries(types.map(([type, tally]) => [type, { selected: tally.selected, replay: tally.toReplay }])),
    };
  }
}

export interface ReplayReport extends ReplayCounts {
  readonly target: string;
  readonly dry_run: boolean;
  readonly interrupted: boolean;
  readonly selected: number;
  readonly would_replay?: number;
  readonly first_position: string | null;
  readonly last_position: string | null;
  readonly resume_after?: string;
  readonly by_type: Record<string, { readonly selected: number; readonly replay: number }>;
}

/** The human summary: what was selected, per type, then one `summary:` line with the counts. */
export function formatReplayReport(report: ReplayReport): string {
  const lines: string[] = [];
  const range = report.first_position === null ? 'no events' : `positions ${report.first_position} … ${report.last_position}`;
  if (report.dry_run) {
    lines.push(
      `dry run: would replay ${report.would_replay ?? 0} of ${report.selected} selected events to ${report.target} (${range}); nothing was sent`,
    );
  } else {
    lines.push(
      `${report.interrupted ? 'interrupted: ' : ''}replayed ${report.replayed} of ${report.selected} selected events to ${report.target} (${range})`,
    );
  }
  const types = Object.entries(report.by_type);
  if (types.length > 0) {
    const width = Math.max(4, ...types.map(([type]) => type.length));
    lines.push(`  ${'type'.padEnd(width)}  ${'selected'.padStart(8)}  ${'to replay'.padStart(9)}`);
    for (const [type, tally] of types)
      lines.push(`  ${type.padEnd(width)}  ${String(tally.selected).padStart(8)}  ${String(tally.replay).padStart(9)}`);
  }
  const counts = `replayed=${report.replayed} created=${report.created} already_created=${report.already_created} parked=${report.parked} held=${report.held} skipped=${report.skipped}`;
  lines.push(`summary: ${counts}${report.dry_run ? ` would_replay=${report.would_replay ?? 0}` : ''}`);
  if (report.resume_after) lines.push(`resume with: --after-position ${report.resume_after}`);
  return `${lines.join('\n')}\n`;
}
