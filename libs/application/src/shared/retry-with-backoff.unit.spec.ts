import { Signal } from './async.util';
import { nextDelay, retryWithBackoff } from './retry-with-backoff';

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
    await expect(retryWithBackoff(attempt, { initialDelayMs: 1, maxDelayMs: 1, proceed: () => false })).resolves.toEqual({ kind: 'stopped' });
    expect(attempt).not.toHaveBeenCalled();
  });

  it('given a failing attempt, when proceed turns false during the wait and the interrupt wakes it, then it stops without another attempt', async () => {
    let stopping = false;
    const interrupt = new Signal();
    let calls = 0;
    const started = Date.now();
    const done = retryWithBackoff(
      async () => {
        calls += 1;
        throw new Error('down');
      },
      { initialDelayMs: 10_000, maxDelayMs: 10_000, interrupt, proceed: () => !stopping },
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
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
