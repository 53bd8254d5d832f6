/**
 * Call it in a describe: `open()` before each test (`'all'`: once, before the describe's tests) and
 * `close` after. The answer gives the one opened now, and names `what` when used outside a test.
 */
export function useOpened<T>(
  what: string,
  open: () => T | Promise<T>,
  close: (opened: T) => Promise<void>,
  scope: 'each' | 'all' = 'each',
): () => T {
  let opened: { readonly value: T } | undefined;
  const [before, after] = scope === 'each' ? [beforeEach, afterEach] : [beforeAll, afterAll];

  before(async () => {
    opened = { value: await open() };
  });

  after(async () => {
    const current = opened;
    opened = undefined;
    if (current) await close(current.value);
  });

  return () => {
    if (!opened) throw new Error(`no ${what} outside a test`);
    return opened.value;
  };
}

/** useOpened for what closes itself: `close()` after each test (`'all'`: after the describe's tests). */
export function useClosable<T extends { close(): Promise<void> }>(
  what: string,
  open: () => T | Promise<T>,
  scope: 'each' | 'all' = 'each',
): () => T {
  return useOpened(what, open, (opened) => opened.close(), scope);
}
