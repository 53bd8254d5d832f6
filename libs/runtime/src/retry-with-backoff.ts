import { sleep, type Signal } from './async.util';

export interface BackoffPolicy {
  /** The wait after the first failure. */
  readonly initialDelayMs: number;
  /** The longest wait: each failure doubles the previous one up to this. */
  readonly maxDelayMs: number;
  /** 'linear' adds initialDelayMs after each failure instead of doubling (still up to maxDelayMs). */
  readonly growth?: 'exponential' | 'linear';
}

export interface RetryOptions extends BackoffPolicy {
  /**
   * Asked before every attempt (the first included), with the number of the attempt to come: false
   * ends the loop as `stopped` — the owner is stopping, lost its term, or the work is no longer
   * wanted. May wait (e.g. while suspended).
   */
  readonly proceed?: (attemptNumber: number) => boolean | Promise<boolean>;
  /** Wakes a wait early (a stop request); the loop then asks `proceed` before trying again. */
  readonly interrupt?: Signal;
  /** Waits initialDelayMs before the first attempt too (a restart after a crash), then backs off from there. */
  readonly waitFirst?: boolean;
  /** Waits out a delay instead of `sleep(delayMs, interrupt)` (a Kafka consumer heartbeats meanwhile); may end early. */
  readonly wait?: (delayMs: number) => Promise<void>;
  /** False for a failure not worth retrying: the loop rethrows it at once. Every failure is retried unless given. */
  readonly retryIf?: (error: unknown, attemptNumber: number) => boolean;
  /** Told of each failure, with its 1-based attempt number and the wait before the next try. */
  readonly onFailure?: (error: unknown, attempt: number, delayMs: number) => void;
}

export type RetryResult<T> = { readonly kind: 'done'; readonly value: T } | { readonly kind: 'stopped' };

/** Exponential backoff: the next delay after `delay`, capped. */
export function nextDelay(delay: number, max: number): number {
  return Math.min(delay * 2, max);
}

/**
 * The wait after `failures` failures in a row (1 or more), as retryWithBackoff waits it: for a
 * loop driven by events rather than by one attempt (a process exit, a timer's flush), which counts
 * its own failures. initialDelayMs after the first; then doubled (linear: initialDelayMs more) up
 * to maxDelayMs.
 */
export function backoffDelay(policy: BackoffPolicy, failures: number): number {
  const steps = Math.max(0, Math.min(failures - 1, 1023));
  const grown = policy.growth === 'linear' ? policy.initialDelayMs * (steps + 1) : policy.initialDelayMs * 2 ** steps;
  return Math.min(grown, policy.maxDelayMs);
}

/**
 * Runs `attempt` until it resolves, waiting with exponential backoff after each failure. It never
 * gives up by itself (nothing may be dropped): the loop ends only when `attempt` resolves,
 * `proceed` says stop, or `retryIf` turns a failure down (rethrown). `attempt` gets the 1-based
 * attempt number, so a caller can change course after repeated failures (park instead of
 * retrying, for example) by resolving differently.
 */
export async function retryWithBackoff<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<RetryResult<T>> {
  let delay = options.initialDelayMs;
  if (options.waitFirst) {
    await pause(options, delay);
    delay = grow(options, delay);
  }
  const go = mayProceed(options, 1);
  if (go !== true && !(await go)) return STOPPED;
  try {
    return { kind: 'done', value: await attempt(1) };
  } catch (error) {
    return retryFrom(error, 1, delay, attempt, options);
  }
}

/**
 * The same loop for an attempt the caller already made once, itself, and saw fail: a hot path
 * (a message, a delivery) costs only its own attempt, and the retry is built on the first failure.
 * `firstError` is reported (onFailure, retryIf) as attempt 1's; `attempt` runs from attempt 2.
 */
export function retryAfterFailure<T>(
  firstError: unknown,
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryOptions,
): Promise<RetryResult<T>> {
  return retryFrom(firstError, 1, options.initialDelayMs, attempt, options);
}

async function retryFrom<T>(
  error: unknown,
  failedAttempt: number,
  delay: number,
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryOptions,
): Promise<RetryResult<T>> {
  for (let attemptNumber = failedAttempt + 1; ; attemptNumber += 1) {
    if (options.retryIf && !options.retryIf(error, attemptNumber - 1)) throw error;
    options.onFailure?.(error, attemptNumber - 1, delay);
    if (!(await mayProceed(options, attemptNumber))) return STOPPED;
    await pause(options, delay);
    delay = grow(options, delay);
    if (!(await mayProceed(options, attemptNumber))) return STOPPED;
    try {
      return { kind: 'done', value: await attempt(attemptNumber) };
    } catch (next) {
      error = next;
    }
  }
}

const STOPPED: RetryResult<never> = Object.freeze({ kind: 'stopped' });

/** `proceed`'s answer; a plain boolean costs no turn of the event loop (the first attempt of every call asks). */
function mayProceed(options: RetryOptions, attemptNumber: number): boolean | Promise<boolean> {
  return options.proceed ? options.proceed(attemptNumber) : true;
}

function pause(options: RetryOptions, delayMs: number): Promise<void> {
  return options.wait ? options.wait(delayMs) : sleep(delayMs, options.interrupt);
}

function grow(options: RetryOptions, delay: number): number {
  return options.growth === 'linear' ? Math.min(delay + options.initialDelayMs, options.maxDelayMs) : nextDelay(delay, options.maxDelayMs);
}
