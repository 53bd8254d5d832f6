import type { Rejection } from '@wts/domain';
import type { AuditFilter, AuditRow, PageRequest, ReadModelStore } from '@wts/read-models';
import type { BatchedActivityRecorder } from '../delivery/webhook-activity.recorder';
import { listing, type Listing } from '../run/run.queries';
import { toActorView, type ActorView } from './actor.view';

/** One audit entry as the admin API shows it (`GET /admin/audit`). */
export interface AuditEntryItem {
  readonly at: string;
  readonly actor: ActorView | null;
  readonly action: string;
  readonly target: { readonly type: string; readonly id: string | null; readonly routine_id: string | null };
  readonly outcome: 'succeeded' | 'denied';
  readonly trace_id: string | null;
  readonly detail: string | null;
  /** Where a refused attempt came from (the client address, X-Forwarded-For only from a TRUST_PROXY peer); null on writes. */
  readonly source_address: string | null;
}

/** Who did what, newest first: admin writes (from their events' actor) and refused admin attempts. */
export class AuditQueries {
  constructor(
    private readonly readModels: ReadModelStore,
    private readonly recorder: BatchedActivityRecorder,
  ) {}

  async entries(filter: AuditFilter, page: PageRequest): Promise<Listing<AuditEntryItem> | Rejection> {
    // What this replica refused a moment ago shows at once.
    await this.recorder.flush();
    return listing(() => this.readModels.audit(filter, page), toAuditEntryItem);
  }
}

export function toAuditEntryItem(row: AuditRow): AuditEntryItem {
  return {
    at: row.at,
    actor: row.actor === null ? null : toActorView(row.actor),
    action: row.action,
    target: { type: row.targetType, id: row.targetId, routine_id: row.routineId },
    outcome: row.outcome,
    trace_id: row.traceId,
    detail: row.detail,
    source_address: row.sourceAddress,
  };
}
