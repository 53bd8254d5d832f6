/** Wakes whoever waits: a condition variable for one loop and its feeder. */
export class Signal {
  private readonly waiters = new Set<() => void>();

  wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  /** Calls `callback` on the next notify; returns a function that cancels it. */
  once(callback: () => void): () => void {
    this.waiters.add(callback);
    return () => this.waiters.delete(callback);
  }

  notify(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }
}

/** A sleep that ends early when `interrupt` is notified (no listener is left behind either way). */
export function sleep(ms: number, interrupt?: Signal): Promise<void> {
  return new Promise((resolve) => {
    const cancel = interrupt?.once(() => {
      clearTimeout(timer);
      resolve();
    });
    const timer = setTimeout(() => {
      cancel?.();
      resolve();
    }, ms);
  });
}

export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
