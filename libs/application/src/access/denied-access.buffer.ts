import { deniedClassOf, type AuditRow, type DeniedClass } from '@wts/read-models';

/**
 * Denied admin attempts waiting to be written, held as the database keeps them: the newest
 * `perSource` of each (class, source address), so a flood from one address while the database is
 * slow or down replaces only its own entries; and at most `maxPending` of each class, beyond which
 * a new source's entry is dropped rather than one already held (what came before a flood from many
 * addresses stays). A record costs at most a shift of `perSource` entries, never a scan of what is
 * held.
 */
export class DeniedAccessBacklog {
  private bySource = new Map<string, AuditRow[]>();
  private held: Record<DeniedClass, number> = { named: 0, anonymous: 0 };

  constructor(
    private readonly perSource: number,
    private readonly maxPending: number,
  ) {}

  /** Holds `row`; how many entries it cost (0, or 1: its source's oldest, or itself). */
  add(row: AuditRow): number {
    const deniedClass = deniedClassOf(row);
    const key = `${deniedClass}|${row.sourceAddress ?? ''}`;
    const held = this.bySource.get(key);
    if (held && held.length >= this.perSource) {
      held.push(row);
      held.shift();
      return 1;
    }
    if (this.perSource === 0 || this.held[deniedClass] >= this.maxPending) return 1;
    if (held) held.push(row);
    else this.bySource.set(key, [row]);
    this.held[deniedClass] += 1;
    return 0;
  }

  get size(): number {
    return this.held.named + this.held.anonymous;
  }

  /** Everything held (each source's oldest first), leaving it empty. */
  takeAll(): AuditRow[] {
    const rows = [...this.bySource.values()].flat();
    this.bySource = new Map();
    this.held = { named: 0, anonymous: 0 };
    return rows;
  }
}
