/** A check's answer that means "not yet": `undefined`, or `false` from a boolean check. */
type NotYet = undefined | false;

/**
 * Polls `check` every `intervalMs` until it answers something other than `undefined` or `false`,
 * and resolves with that answer (`true` for a boolean check). A check that throws counts as "not
 * yet". After `timeoutMs` it rejects with `what` and the last answer or error, so a failure says
 * what was still missing rather than only that time ran out.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs: number,
  what: string,
  intervalMs = 100,
): Promise<Exclude<T, NotYet>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: string;
    try {
      const answer = await check();
      if (answer !== undefined && answer !== false) return answer as Exclude<T, NotYet>;
      last = `the check answered ${String(answer)}`;
    } catch (error) {
      last = `the check threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
    }
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last})`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
