import type { HourlyCount } from '../hourly-activity';
import type { AttemptRow, AuditRow, DeniedAccessBounds } from '../read-model.port';

/** What the ingress's activity thread is asked to write (one transaction each). */
export type ActivityRequest =
  | { readonly id: number; readonly op: 'attempts'; readonly attempts: readonly AttemptRow[]; readonly keep: number }
  | { readonly id: number; readonly op: 'replays'; readonly counts: readonly (readonly [string, number])[] }
  | { readonly id: number; readonly op: 'denied'; readonly rows: readonly AuditRow[]; readonly bounds: DeniedAccessBounds }
  | { readonly id: number; readonly op: 'hourly'; readonly counts: readonly HourlyCount[]; readonly pruneBefore: string };

export type ActivityReply =
  { readonly id: number; readonly ok: true } | { readonly id: number; readonly ok: false; readonly error: string };

export interface ActivityWorkerData {
  readonly filePath: string;
  readonly busyTimeoutMs: number;
}
