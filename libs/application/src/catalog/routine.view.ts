import type { RoutineState } from '@wts/domain';

export interface RoutineView {
  readonly id: string;
  readonly name: string;
  readonly instructions: string;
  readonly tools: readonly { readonly name: string; readonly sends_externally: boolean }[];
  readonly mode: string;
  readonly account_scope: readonly string[];
  readonly created_at: string;
  readonly updated_at: string;
}

export function toRoutineView(routine: RoutineState): RoutineView {
  return {
    id: routine.routineId,
    name: routine.name,
    instructions: routine.instructions,
    tools: routine.tools.map((tool) => ({ name: tool.name, sends_externally: tool.sendsExternally })),
    mode: routine.mode,
    account_scope: routine.accountScope,
    created_at: routine.createdAt,
    updated_at: routine.updatedAt,
  };
}
