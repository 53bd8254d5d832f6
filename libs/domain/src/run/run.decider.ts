import type { DeliveryAccepted, RoutineSnapshot, RunEvent } from '@wts/contracts';
import type { RoutineState } from '../catalog/routine.decider';
import { accept, reject, singleEventDecider, type Decider, type Decision } from '../shared/decision';
import { judgeRoutineSafety } from '../safety/safety.policy';
import { runFraming } from './run-message.framer';

export interface CreateRun {
  readonly type: 'CreateRun';
  readonly delivery: DeliveryAccepted['data'];
  /**
   * The routine the run is judged on and made with: as it was when the delivery was accepted, or as
   * it stands at the release of the hold that kept it (or at an operator's re-dispatch).
   */
  readonly routine: RoutineState | null;
  /**
   * Whether the trigger account is active as of that same point. Absent: judged as at acceptance,
   * where the ingress accepted only an active account.
   */
  readonly accountActive?: boolean;
  /** Kept by a hold the operator released with discard: never run by the dispatcher (an operator's re-dispatch is not discarded). */
  readonly discarded?: boolean;
  readonly now: string;
}

/** Why a discarded delivery has no run (the park's error follows its code). */
export const DISCARDED_DETAIL = 'the hold that kept this delivery was released with discard (re-dispatch it to run it as things now stand)';

/** The run stream's first event: the run, or the mark that its payload was removed before it was made. */
export type RunState = RunEvent['data'] | null;

/** Why a delivery whose payload was removed before its run was made has none (the park's error follows its code). */
export const PAYLOAD_REMOVED_DETAIL = 'the payload was removed (expired or erased) before a run was made from it';

/** What a run records of its routine: the tools, instructions and mode it runs with. */
export function routineSnapshot(routine: RoutineState): RoutineSnapshot {
  return { name: routine.name, tools: routine.tools, instructions: routine.instructions, mode: routine.mode };
}

/** One delivery, one run: an existing run means the work is done (no new event). */
export function decideRun(command: CreateRun, state: RunState): Decision<RunEvent> {
  if (state !== null) return 'withheldAt' in state ? reject('payload_removed', PAYLOAD_REMOVED_DETAIL) : accept();
  if (command.discarded) return reject('discarded_by_operator', DISCARDED_DETAIL);
  const { delivery, routine } = command;
  if (routine === null) return reject('routine_not_found', `routine ${delivery.routineId} does not exist`);
  // Judged again on the routine (as at acceptance, or as it now stands for a release): a replica
  // deciding on a lagging view, or a hold outliving a change, can never start an unsafe run, nor
  // one for an account outside the routine's scope or no longer active.
  const safety = judgeRoutineSafety(routine);
  if (safety.blocked) return reject('webhook_blocked', safety.reason);
  if (!routine.accountScope.includes(delivery.triggerAccount.accountId)) {
    return reject('account_out_of_scope', "the trigger account is outside the routine's account scope");
  }
  if (command.accountActive === false) return reject('account_inactive', 'the trigger account is no longer active');
  return accept({
    type: 'RunCreated',
    data: {
      runId: delivery.runId,
      routineId: delivery.routineId,
      webhookId: delivery.webhookId,
      deliveryId: delivery.deliveryId,
      triggerAccount: delivery.triggerAccount,
      routine: routineSnapshot(routine),
      framing: runFraming(delivery),
      status: 'created',
      createdAt: command.now,
    },
  });
}

export const runDecider: Decider<CreateRun, RunEvent, RunState> = singleEventDecider(decideRun);
