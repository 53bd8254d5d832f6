/// <reference types="jest" />

/**
 * A context made afresh before each test of the enclosing `describe` and finished after it (the
 * contract suites' subject and namespace). Returns its getter, which throws outside a test.
 */
export function perTestContext<C>(make: () => Promise<C>, finish: (context: C) => Promise<void>): () => C {
  let current: C | undefined;
  beforeEach(async () => {
    current = await make();
  });
  afterEach(async () => {
    const finished = current;
    current = undefined;
    if (finished !== undefined) await finish(finished);
  });
  return () => {
    if (current === undefined) throw new Error('contract context used outside a test');
    return current;
  };
}
