import { eventually } from './eventually';

describe('eventually', () => {
  it('given a check that answers a value on the third try, resolves with that value', async () => {
    let calls = 0;
    const value = await eventually(() => (++calls === 3 ? { found: calls } : undefined), 1000, 'the third call', 1);
    expect(value).toEqual({ found: 3 });
  });

  it('given a boolean check, resolves once it answers true', async () => {
    let calls = 0;
    await expect(eventually(async () => ++calls >= 2, 1000, 'two calls', 1)).resolves.toBe(true);
  });

  it('given a check that throws before it passes, keeps polling', async () => {
    let calls = 0;
    const check = (): string => {
      calls += 1;
      if (calls < 3) throw new Error('not listening yet');
      return 'ready';
    };
    await expect(eventually(check, 1000, 'the server', 1)).resolves.toBe('ready');
  });

  it('given falsy answers other than undefined and false, resolves with them', async () => {
    await expect(eventually(() => 0, 100, 'zero', 1)).resolves.toBe(0);
    await expect(eventually(() => null, 100, 'null', 1)).resolves.toBeNull();
  });

  it('when the time runs out, rejects naming what it waited for and the last answer', async () => {
    await expect(eventually(() => false, 30, 'the ingress to be ready', 5)).rejects.toThrow(
      /timed out after 30 ms waiting for the ingress to be ready \(last: the check answered false\)/,
    );
  });

  it('when the time runs out after errors, rejects with the last error', async () => {
    let calls = 0;
    const check = (): boolean => {
      calls += 1;
      throw new Error(`refused ${calls}`);
    };
    await expect(eventually(check, 20, 'a connection', 5)).rejects.toThrow(
      new RegExp(`a connection \\(last: the check threw Error: refused \\d+\\)`),
    );
  });

  it('checks once even with no time at all', async () => {
    await expect(eventually(() => 'at once', 0, 'an immediate answer')).resolves.toBe('at once');
  });
});
