type Waiter<V> = { readonly resolve: (value: V | undefined) => void; readonly reject: (error: unknown) => void };

/**
 * Coalesces look-ups asked for one at a time into batched reads: the keys asked for before the next
 * turn of the event loop go out together (a key asked for twice read once, at most `maxBatch` keys
 * a read), so handling events one by one costs a round of reads per batch, not a round trip each.
 */
export class BatchedLookup<V> {
  private waiting = new Map<string, Waiter<V>[]>();
  private scheduled = false;

  constructor(
    /** Reads a batch of keys: a key without a value is absent from the answer. */
    private readonly readBatch: (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>,
    private readonly maxBatch = 500,
  ) {}

  load(key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.waiting;
    this.waiting = new Map();
    const keys = [...batch.keys()];
    for (let from = 0; from < keys.length; from += this.maxBatch) {
      const chunk = keys.slice(from, from + this.maxBatch);
      this.readBatch(chunk).then(
        (found) => {
          for (const key of chunk) for (const waiter of batch.get(key) ?? []) waiter.resolve(found.get(key));
        },
        (error: unknown) => {
          for (const key of chunk) for (const waiter of batch.get(key) ?? []) waiter.reject(error);
        },
      );
    }
  }
}
