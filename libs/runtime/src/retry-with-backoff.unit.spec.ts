import { eventually } from '@wts/testing';
import { Signal } from './async.util';
import { backoffDelay, nextDelay, retryAfterFailure, retryWithBackoff } from './retry-with-backoff';

describe('retryWithBackoff', () => {
  it('given an attempt that fails twice, when retried, then it resolves with the third result after doubling waits', async () => {
    const failures: Array<{ attempt: number; delayMs: number }> = [];
    const result = await retryWithBackoff(
      async (attempt) => {
        if (attempt < 3) throw new Error(`boom ${attempt}`);
        return attempt * 10;
      },
      { initialDelayMs: 1, maxDelayMs: 100, onFailure: (_error, attempt, delayMs) => failures.push({ attempt, delayMs }) },
    );
    expect(result).toEqual({ kind: 'done', value: 30 });
    expect(failures).toEqual([
      { attempt: 1, delayMs: 1 },
      { attempt: 2, delayMs: 2 },
    ]);
  });

  it('given proceed says no, when asked before the first attempt, then nothing runs and it stops', async () => {
    const attempt = jest.fn(async () => 1);
    await expect(retryWithBackoff(attempt, { initialDelayMs: 1, maxDelayMs: 1, proceed: () => false })).resolves.toEqual({
      kind: 'stopped',
    });
    expect(attempt).not.toHaveBeenCalled();
  });

  it('given a failing attempt, when proceed turns false during the wait and the interrupt wakes it, then it stops without another attempt', async () => {
    let stopping = false;
    const interrupt = new Signal();
    let calls = 0;
    const asleep = jest.spyOn(interrupt, 'once');
    const started = Date.now();
    const done = retryWithBackoff(
      async () => {
        calls += 1;
        throw new Error('down');
      },
      { initialDelayMs: 10_000, maxDelayMs: 10_000, interrupt, proceed: () => !stopping },
    );
    await eventually(() => asleep.mock.calls.length === 1, 3000, 'the retry to wait out its backoff', 1);
    stopping = true;
    interrupt.notify();
    await expect(done).resolves.toEqual({ kind: 'stopped' });
    expect(calls).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('caps the delay', () => {
    expect(nextDelay(300, 500)).toBe(500);
    expect(nextDelay(100, 500)).toBe(200);
  });
});

describe('retryWithBackoff options', () => {
  const failing = (): Promise<never> => Promise.reject(new Error('down'));
  /** An attempt that fails until attempt number `succeedsAt`, which answers 'ok'. */
  const failingUntil =
    (succeedsAt: number) =>
    async (attempt: number): Promise<string> => {
      if (attempt < succeedsAt) throw new Error('down');
      return 'ok';
    };

  it('given proceed, when asked, then it gets the number of the attempt to come (twice between attempts: before and after the wait)', async () => {
    const asked: number[] = [];
    const proceed = (attempt: number): boolean => {
      asked.push(attempt);
      return attempt < 3;
    };
    const result = await retryWithBackoff(failing, { initialDelayMs: 1, maxDelayMs: 1, proceed, wait: async () => undefined });
    expect(result).toEqual({ kind: 'stopped' });
    expect(asked).toEqual([1, 2, 2, 3]);
  });

  it('given a custom wait, when an attempt fails, then it waits through it with the backoff delays instead of sleeping', async () => {
    const waits: number[] = [];
    const result = await retryWithBackoff(failingUntil(4), {
      initialDelayMs: 10_000,
      maxDelayMs: 30_000,
      wait: async (ms) => void waits.push(ms),
    });
    expect(result).toEqual({ kind: 'done', value: 'ok' });
    expect(waits).toEqual([10_000, 20_000, 30_000]);
  });

  it('given retryIf turns a failure down, when it happens, then the error is rethrown without a wait or onFailure', async () => {
    const onFailure = jest.fn();
    const wait = jest.fn(async () => undefined);
    const fatal = new Error('fatal');
    const done = retryWithBackoff(
      async (attempt) => {
        throw attempt < 3 ? new Error('transient') : fatal;
      },
      { initialDelayMs: 1, maxDelayMs: 1, wait, onFailure, retryIf: (error) => error !== fatal },
    );
    await expect(done).rejects.toBe(fatal);
    expect(onFailure).toHaveBeenCalledTimes(2);
    expect(wait).toHaveBeenCalledTimes(2);
  });

  it('given linear growth, when attempts keep failing, then each wait adds the initial delay, up to the cap', async () => {
    const delays: number[] = [];
    await retryWithBackoff(failingUntil(13), {
      initialDelayMs: 100,
      maxDelayMs: 1000,
      growth: 'linear',
      wait: async () => undefined,
      onFailure: (_error, _attempt, delayMs) => delays.push(delayMs),
    });
    expect(delays).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1000, 1000]);
  });

  it('given waitFirst, when the first attempt fails, then it waited the initial delay before it and backs off from there', async () => {
    const waits: number[] = [];
    const failures: number[] = [];
    await retryWithBackoff(failingUntil(3), {
      initialDelayMs: 1000,
      maxDelayMs: 10_000,
      waitFirst: true,
      wait: async (ms) => void waits.push(ms),
      onFailure: (_error, _attempt, delayMs) => failures.push(delayMs),
    });
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(failures).toEqual([2000, 4000]);
  });

  it('given a first attempt the caller made and saw fail, when retried after it, then that failure is attempt 1 and the retries run from attempt 2 with the same waits', async () => {
    const failures: Array<{ attempt: number; delayMs: number }> = [];
    const attempts: number[] = [];
    const result = await retryAfterFailure(
      new Error('first'),
      async (attempt) => {
        attempts.push(attempt);
        if (attempt < 3) throw new Error(`boom ${attempt}`);
        return attempt;
      },
      {
        initialDelayMs: 1,
        maxDelayMs: 100,
        wait: async () => undefined,
        onFailure: (_error, attempt, delayMs) => failures.push({ attempt, delayMs }),
      },
    );
    expect(result).toEqual({ kind: 'done', value: 3 });
    expect(attempts).toEqual([2, 3]);
    expect(failures).toEqual([
      { attempt: 1, delayMs: 1 },
      { attempt: 2, delayMs: 2 },
    ]);
  });

  it('given a first failure retryIf turns down, when retried after it, then it is rethrown without another attempt', async () => {
    const attempt = jest.fn(async () => 1);
    const error = new Error('not worth retrying');
    await expect(retryAfterFailure(error, attempt, { initialDelayMs: 1, maxDelayMs: 1, retryIf: () => false })).rejects.toBe(error);
    expect(attempt).not.toHaveBeenCalled();
  });

  it('given proceed says no after the first failure, when retried after it, then it stops without waiting or trying again', async () => {
    const attempt = jest.fn(async () => 1);
    const wait = jest.fn(async () => undefined);
    const proceed = jest.fn(() => false);
    await expect(retryAfterFailure(new Error('down'), attempt, { initialDelayMs: 1, maxDelayMs: 1, wait, proceed })).resolves.toEqual({
      kind: 'stopped',
    });
    expect(proceed).toHaveBeenCalledWith(2);
    expect(wait).not.toHaveBeenCalled();
    expect(attempt).not.toHaveBeenCalled();
  });
});

describe('backoffDelay', () => {
  it('given failures in a row, then it is the wait retryWithBackoff waits after as many: doubled from initialDelayMs, capped', () => {
    const policy = { initialDelayMs: 500, maxDelayMs: 15_000 };
    expect([1, 2, 3, 4, 5, 6, 7].map((failures) => backoffDelay(policy, failures))).toEqual([
      500, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000,
    ]);
    expect(backoffDelay({ initialDelayMs: 0.1, maxDelayMs: 1 }, 4)).toBe(0.8);
  });

  it('given linear growth, then each failure adds initialDelayMs, capped', () => {
    expect([1, 2, 3, 9].map((failures) => backoffDelay({ initialDelayMs: 200, maxDelayMs: 1_000, growth: 'linear' }, failures))).toEqual([
      200, 400, 600, 1_000,
    ]);
  });

  it('given endless failures or a zero initial delay, then it stays a number: the cap, or zero', () => {
    expect(backoffDelay({ initialDelayMs: 20, maxDelayMs: 5_000 }, 100_000)).toBe(5_000);
    expect(backoffDelay({ initialDelayMs: 0, maxDelayMs: 5_000 }, 100_000)).toBe(0);
  });

  it('agrees with the waits of retryWithBackoff', async () => {
    const waits: number[] = [];
    const policy = { initialDelayMs: 3, maxDelayMs: 40 };
    await retryWithBackoff(
      async (attempt) => {
        if (attempt < 7) throw new Error('down');
      },
      { ...policy, wait: async (delayMs) => void waits.push(delayMs) },
    );
    expect(waits).toEqual([1, 2, 3, 4, 5, 6].map((failures) => backoffDelay(policy, failures)));
  });
});
