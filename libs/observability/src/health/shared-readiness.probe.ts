import { READINESS_TIMEOUT_MS, withinTimeout, type ReadinessCheck } from './readiness.probe';

/** How long one check's answer stands for every probe that asks. */
export const READINESS_RESULT_TTL_MS = 1000;

/**
 * A dependency checked at most once per `ttlMs` however many probes arrive: concurrent probes
 * share the check in flight, and later ones within `ttlMs` of its end get its answer (up or down,
 * with the same error). Readiness is public (load balancers, orchestrators), so a flood of probes
 * must not become a flood of Kafka metadata requests, PostgreSQL queries and Redis pings.
 */
export function sharedReadinessCheck(
  dependency: ReadinessCheck,
  ttlMs = READINESS_RESULT_TTL_MS,
  now: () => number = Date.now,
): ReadinessCheck {
  let inFlight: Promise<void> | undefined;
  let last: { readonly at: number; readonly outcome: Promise<void> } | undefined;
  const run = async (): Promise<void> => withinTimeout(dependency.check(), READINESS_TIMEOUT_MS, dependency.name);
  return {
    name: dependency.name,
    check(): Promise<void> {
      if (inFlight) return inFlight;
      if (last && now() - last.at < ttlMs) return last.outcome;
      const current = run();
      inFlight = current;
      const settle = (): void => {
        inFlight = undefined;
        last = { at: now(), outcome: current };
      };
      current.then(settle, settle);
      return current;
    },
    ...(dependency.close ? { close: () => dependency.close?.() ?? Promise.resolve() } : {}),
  };
}
