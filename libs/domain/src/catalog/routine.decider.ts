import type { RoutineDefinition, RoutineEvent } from '@wts/contracts';
import { assertNever } from '@wts/contracts';
import { accept, reject, type Decider, type Decision } from '../shared/decision';

export interface RoutineState extends RoutineDefinition {
  readonly routineId: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export type Routine = RoutineState | null;

export type RoutineCommand =
  | {
      readonly type: 'CreateRoutine';
      readonly routineId: string;
      readonly definition: RoutineDefinition;
      /** Ids of connected accounts: the scope may only name those. */
      readonly knownAccountIds: ReadonlySet<string>;
      readonly now: string;
    }
  | {
      readonly type: 'UpdateRoutine';
      readonly routineId: string;
      readonly changes: Partial<RoutineDefinition>;
      readonly knownAccountIds: ReadonlySet<string>;
      readonly now: string;
    };

function unknownScope(scope: readonly string[] | undefined, known: ReadonlySet<string>): string | undefined {
  return scope?.find((accountId) => !known.has(accountId));
}

export function decideRoutine(command: RoutineCommand, state: Routine): Decision<RoutineEvent> {
  switch (command.type) {
    case 'CreateRoutine': {
      if (state !== null) return reject('validation_failed', `routine ${command.routineId} exists`);
      const unknown = unknownScope(command.definition.accountScope, command.knownAccountIds);
      if (unknown) return reject('unknown_scope_account', `account_scope names an unknown account: ${unknown}`);
      return accept({
        type: 'RoutineCreated',
        data: { routineId: command.routineId, ...command.definition, createdAt: command.now },
      });
    }
    case 'UpdateRoutine': {
      if (state === null) return reject('routine_not_found', `no routine ${command.routineId}`);
      const unknown = unknownScope(command.changes.accountScope, command.knownAccountIds);
      if (unknown) return reject('unknown_scope_account', `account_scope names an unknown account: ${unknown}`);
      if (Object.keys(command.changes).length === 0) return accept();
      return accept({
        type: 'RoutineUpdated',
        data: { routineId: command.routineId, changes: command.changes, updatedAt: command.now },
      });
    }
    default:
      return assertNever(command);
  }
}

export function evolveRoutine(state: Routine, event: RoutineEvent): Routine {
  switch (event.type) {
    case 'RoutineCreated': {
      const { createdAt, ...rest } = event.data;
      return { ...rest, createdAt, updatedAt: createdAt };
    }
    case 'RoutineUpdated':
      return state === null ? null : { ...state, ...event.data.changes, updatedAt: event.data.updatedAt };
    default:
      return assertNever(event);
  }
}

export const routineDecider: Decider<RoutineCommand, RoutineEvent, Routine> = {
  decide: decideRoutine,
  evolve: evolveRoutine,
  initialState: () => null,
};
