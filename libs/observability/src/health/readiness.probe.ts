/** One dependency readiness depends on: `check` resolves while it answers. */
export interface ReadinessCheck {
  /** The key in the health body: event_store, kafka, redis, postgresql, read_models. */
  readonly name: string;
  check(): Promise<void>;
  /** Releases what the check keeps open (a long-lived client), when the service stops. */
  close?(): Promise<void>;
}

/** Nest token of the service's ReadinessCheck[]. */
export const READINESS_CHECKS = Symbol('ReadinessChecks');

/** A dependency that does not answer within this long is down. */
export const READINESS_TIMEOUT_MS = 2000;

export async function withinTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
