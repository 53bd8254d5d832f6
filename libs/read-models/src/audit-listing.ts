import type { AuditPlace } from './cursor';
import type { AuditFilter } from './read-model.port';
import { AUDIT_COLUMNS } from './read-model.records';

/**
 * The audit trail's listing, one SQL text per shape (filters present, first page or not) for both
 * adapters, which differ only in how a parameter is written. Newest first by (at, entry_id):
 * every shape is an index range scan of at most `limit` rows per index — overall (at, entry_id),
 * by routine (routine_id, at, entry_id), by actor one scan by subject and one by lower(display)
 * among verified displays only (a partial index), merged (UNION: an entry matching both is listed
 * once). An unverified display (an OIDC username, an unverified email) is what the person typed:
 * it never finds anyone's entries, their subject does.
 */

export type AuditParam = 'routineId' | 'actor' | 'at' | 'entryId' | 'limit';

export interface AuditListing {
  readonly text: string;
  /** The parameters in order of first use (PostgreSQL numbers them so). */
  readonly params: readonly AuditParam[];
}

/** The parameters' values of one call; `limit` is the page size + 1. */
export type AuditParams = Readonly<Record<AuditParam, string | number | null>>;

export interface AuditShape {
  readonly routine: boolean;
  readonly actor: boolean;
  readonly after: boolean;
}

const NEWEST_FIRST = 'ORDER BY at DESC, entry_id DESC';

/** `placeholder(name, index)`: how the adapter writes parameter `name`, the `index`-th distinct one used. */
export function auditListing(shape: AuditShape, placeholder: (name: AuditParam, index: number) => string): AuditListing {
  const params: AuditParam[] = [];
  const p = (name: AuditParam): string => {
    if (!params.includes(name)) params.push(name);
    return placeholder(name, params.indexOf(name));
  };
  const columns = AUDIT_COLUMNS.join(', ');
  const scan = (actorCondition?: string): string => {
    const conditions = [
      ...(actorCondition ? [actorCondition] : []),
      ...(shape.routine ? [`routine_id = ${p('routineId')}`] : []),
      ...(shape.after ? [`(at, entry_id) < (${p('at')}, ${p('entryId')})`] : []),
    ];
    const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
    return `SELECT ${columns} FROM rm_audit_entries${where} ${NEWEST_FIRST} LIMIT ${p('limit')}`;
  };
  if (!shape.actor) return { text: scan(), params };
  const bySubject = scan(`actor_subject = ${p('actor')}`);
  const byDisplay = scan(`lower(actor_display) = lower(${p('actor')}) AND actor_display_verified = 1`);
  const text = `SELECT * FROM (${bySubject}) AS by_subject UNION SELECT * FROM (${byDisplay}) AS by_display ${NEWEST_FIRST} LIMIT ${p('limit')}`;
  return { text, params };
}

export function auditShape(filter: AuditFilter, after: AuditPlace | undefined): AuditShape {
  return { routine: filter.routineId !== undefined, actor: filter.actor !== undefined, after: after !== undefined };
}

export function auditParams(filter: AuditFilter, after: AuditPlace | undefined, limit: number): AuditParams {
  return {
    routineId: filter.routineId ?? null,
    actor: filter.actor ?? null,
    at: after?.at ?? null,
    entryId: after?.entryId ?? null,
    limit,
  };
}

/** The eight shapes' key, for the adapters' caches of prepared statements. */
export function shapeKey(shape: AuditShape): string {
  return `${shape.routine ? 'r' : '-'}${shape.actor ? 'a' : '-'}${shape.after ? 'c' : '-'}`;
}
