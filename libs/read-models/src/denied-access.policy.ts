import { checkKeep } from './pagination';
import type { AuditRow, DeniedAccessBounds } from './read-model.port';

/**
 * Which denied entries are kept, shared by both adapters (and the ingress's queue of entries not
 * yet written): each class keeps its own, and within a class each source address its own, so that
 * nobody's flood can push out somebody else's record (see DeniedAccessBounds).
 *
 * `named`: the credential named someone (a revoked or expired API key, a role too low: only a real
 * credential gets there). `anonymous`: no credential, or one nobody has (anyone can send those).
 */
export type DeniedClass = 'named' | 'anonymous';

export function deniedClassOf(row: Pick<AuditRow, 'actor'>): DeniedClass {
  return row.actor === null ? 'anonymous' : 'named';
}

/** The rows of one class of denied entries, as the partial indexes of migration 4 are defined (`alias.` when given). */
export function deniedOfClass(deniedClass: DeniedClass, alias?: string): string {
  const column = (name: string): string => (alias ? `${alias}.${name}` : name);
  return `${column('outcome')} = 'denied' AND ${column('actor_kind')} IS ${deniedClass === 'named' ? 'NOT NULL' : 'NULL'}`;
}

/**
 * The denied entries of `deniedClass` (of one source address, when `source` names its
 * placeholder) beyond their newest `keep` (a placeholder): the boundary is the (keep+1)th newest,
 * read from the class's index, (at, entry_id) or (source_address, at, entry_id); none (fewer rows)
 * compares as NULL and deletes nothing.
 */
export function trimDenied(deniedClass: DeniedClass, placeholders: { readonly keep: string; readonly source?: string }): string {
  const rows = `${deniedOfClass(deniedClass)}${placeholders.source === undefined ? '' : ` AND source_address = ${placeholders.source}`}`;
  return `DELETE FROM rm_audit_entries WHERE ${rows} AND (at, entry_id) <= (
    SELECT at, entry_id FROM rm_audit_entries WHERE ${rows} ORDER BY at DESC, entry_id DESC LIMIT 1 OFFSET ${placeholders.keep})`;
}

/** The source addresses a batch (checked by checkDeniedAccess) touched, per class, each once. */
export function deniedSources(rows: readonly AuditRow[]): ReadonlyMap<DeniedClass, readonly string[]> {
  const sources = new Map<DeniedClass, Set<string>>();
  for (const row of rows) {
    const deniedClass = deniedClassOf(row);
    sources.set(deniedClass, (sources.get(deniedClass) ?? new Set<string>()).add(row.sourceAddress ?? ''));
  }
  return new Map([...sources].map(([deniedClass, of]) => [deniedClass, [...of]]));
}

/** recordDeniedAccess writes denied entries only, each with its source: a projected one there would be trimmed away. */
export function checkDeniedAccess(rows: readonly AuditRow[], bounds: DeniedAccessBounds): DeniedAccessBounds {
  const notDenied = rows.find((row) => row.outcome !== 'denied');
  if (notDenied) throw new RangeError(`recordDeniedAccess takes denied entries only, got ${JSON.stringify(notDenied.outcome)}`);
  const sourceless = rows.find((row) => typeof row.sourceAddress !== 'string' || row.sourceAddress === '');
  if (sourceless) throw new RangeError(`a denied entry needs its source address (entry ${JSON.stringify(sourceless.entryId)})`);
  return { perSource: checkKeep(bounds.perSource, 'perSource'), overall: checkKeep(bounds.overall, 'overall') };
}
