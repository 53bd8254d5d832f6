import { sleep, type Signal } from './async.util';

export interface BackoffPolicy {
  /** The wait after the first failure. */
  readonly initialDelayMs: number;
  /** The longest wait: each failure doubles the previous one up to this. */
  readonly maxDelayMs: number;
}

export interface RetryOptions extends BackoffPolicy {
  /**
   * Asked before every attempt (the first included): false ends the loop as `stopped` — the owner
   * is stopping, lost its term, or the work is no longer wanted. May wait (e.g. while suspended).
   */
  readonly proceed?: () => boolean | Promise<boolean>;
  /** Wakes a wait early (a stop request); the loop then asks `proceed` before trying again. */
  readonly interrupt?: Signal;
  /** Told of each failure, with its 1-based attempt number and the wait before the next try. */
  readonly onFailure?: (error: unknown, attempt: number, delayMs: number) => void;
}

export type RetryResult<T> = { readonly kind: 'done'; readonly value: T } | { readonly kind: 'stopped' };

/** Exponential backoff: the next delay after `delay`, capped. */
export function nextDelay(delay: number, max: number): number {
  return Math.min(delay * 2, max);
}

/**
 * Runs `attempt` until it resolves, waiting with exponential backoff after each failure. It never
 * gives up by itself (nothing may be dropped): the loop ends only when `attempt` resolves or
 * `proceed` says stop. `attempt` gets the 1-based attempt number, so a caller can change course
 * after repeated failures (park instead of retrying, for example) by resolving differently.
 */
export async function retryWithBackoff<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<RetryResult<T>> {
  let delay = options.initialDelayMs;
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    if (options.proceed && !(await options.proceed())) return { kind: 'stopped' };
    try {
      return { kind: 'done', value: await attempt(attemptNumber) };
    } catch (error) {
      options.onFailure?.(error, attemptNumber, delay);
      if (options.proceed && !(await options.proceed())) return { kind: 'stopped' };
      await sleep(delay, options.interrupt);
      delay = nextDelay(delay, options.maxDelayMs);
    }
  }
}
