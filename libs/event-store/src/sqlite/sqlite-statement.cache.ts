/**
 * Prepared statements by key, the least recently used dropped past `capacity`. The payload tables
 * are one per expiry hour, so statements on them are made per table: an unbounded map would grow
 * with the store's age, while a few recent tables take almost all the traffic.
 */
export class StatementCache<S> {
  private readonly entries = new Map<string, S>();

  constructor(private readonly capacity: number) {}

  get(key: string, prepare: () => S): S {
    const found = this.entries.get(key);
    if (found !== undefined) {
      // Re-inserted: Map keeps insertion order, so the first entry is always the least recently used.
      this.entries.delete(key);
      this.entries.set(key, found);
      return found;
    }
    const made = prepare();
    this.entries.set(key, made);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    return made;
  }

  /** Forgets every statement whose key starts with `prefix` (a dropped table's). */
  forget(prefix: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
