import { sharedReadinessCheck } from './shared-readiness.probe';

describe('sharedReadinessCheck', () => {
  let clock = 0;
  const now = (): number => clock;

  function counting(outcome: () => Promise<void>) {
    const calls = { count: 0 };
    const check = sharedReadinessCheck({ name: 'dep', check: () => (calls.count++, outcome()) }, 1000, now);
    return { calls, check };
  }

  beforeEach(() => {
    clock = 0;
  });

  it('given 1,000 probes at once, then one check, and every probe gets its answer', async () => {
    let release: () => void = () => undefined;
    const { calls, check } = counting(() => new Promise<void>((resolve) => (release = resolve)));
    const probes = Array.from({ length: 1000 }, () => check.check());
    release();
    await Promise.all(probes);
    expect(calls.count).toBe(1);
  });

  it('given a check that ended, then probes within the second get its answer; after the second, a new check', async () => {
    const { calls, check } = counting(() => Promise.resolve());
    await check.check();
    clock = 999;
    await check.check();
    expect(calls.count).toBe(1);
    clock = 1000;
    await check.check();
    expect(calls.count).toBe(2);
  });

  it('given a failed check, then probes within the second see the same failure; the next second checks again', async () => {
    let fail = true;
    const { calls, check } = counting(() => (fail ? Promise.reject(new Error('redis is down')) : Promise.resolve()));
    await expect(check.check()).rejects.toThrow('redis is down');
    clock = 500;
    fail = false;
    await expect(check.check()).rejects.toThrow('redis is down');
    expect(calls.count).toBe(1);
    clock = 1500;
    await expect(check.check()).resolves.toBeUndefined();
    expect(calls.count).toBe(2);
  });

  it('given a check that hangs, then it fails after the readiness timeout and the next probe checks again', async () => {
    jest.useFakeTimers();
    try {
      const { calls, check } = counting(() => new Promise<void>(() => undefined));
      const first = check.check();
      const failed = expect(first).rejects.toThrow('dep did not answer within 2000 ms');
      await jest.advanceTimersByTimeAsync(2000);
      await failed;
      clock = 5000;
      void check.check().catch(() => undefined);
      expect(calls.count).toBe(2);
      await jest.advanceTimersByTimeAsync(2000);
    } finally {
      jest.useRealTimers();
    }
  });
});
