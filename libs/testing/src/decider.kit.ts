import type { Decider, Decision, RejectionCode } from '@wts/domain';

/**
 * given(pastEvents).when(command).then(expectedEvents) | .thenRejects(code, detail?) — for any decider.
 * No I/O: the past is folded with evolve, the command decided against the result.
 */
export function specFor<C, E, S>(decider: Decider<C, E, S>) {
  return {
    given(past: readonly E[]) {
      const state = past.reduce(decider.evolve, decider.initialState());
      return {
        when(command: C) {
          const decision: Decision<E> = decider.decide(command, state);
          return {
            then(expected: readonly E[]): void {
              if (decision.kind === 'rejected') {
                throw new Error(`expected events but the command was rejected: ${decision.code} (${decision.detail})`);
              }
              expect(decision.events).toEqual(expected);
            },
            /** The rejection's code and, when given, what its detail tells the caller (text or pattern). */
            thenRejects(code: RejectionCode, detail?: string | RegExp): void {
              expect(decision.kind === 'rejected' ? decision.code : 'accepted').toBe(code);
              if (detail !== undefined && decision.kind === 'rejected') expect(decision.detail).toMatch(detail);
            },
            decision,
            state,
          };
        },
      };
    },
  };
}
