import type { Decider, Decision, RejectionCode } from '@wts/domain';

/**
 * given(pastEvents).when(command).then(expectedEvents) | .thenRejects(code) — for any decider.
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
            thenRejects(code: RejectionCode): void {
              expect(decision.kind === 'rejected' ? decision.code : 'accepted').toBe(code);
            },
            decision,
            state,
          };
        },
      };
    },
  };
}
