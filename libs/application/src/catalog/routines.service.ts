import { ACCOUNT_CATALOG_STREAM, Streams, type RoutineDefinition } from '@wts/contracts';
import {
  idFromBytes,
  isRejection,
  judgeRoutineSafety,
  reject,
  routineDecider,
  webhookDecider,
  type Rejection,
  type RoutineState,
} from '@wts/domain';
import type { AdminCall } from '../access/admin-call';
import type { UseCaseContext } from '../shared/use-case.context';
import { toRoutineView, type RoutineView } from './routine.view';

/** Routines: the tools, instructions, mode and account scope a run uses. */
export class RoutinesService {
  constructor(private readonly context: UseCaseContext) {}

  async create(definition: RoutineDefinition, call: AdminCall): Promise<RoutineView | Rejection> {
    await this.context.fresh([ACCOUNT_CATALOG_STREAM]);
    const routineId = idFromBytes('routine', this.context.random.bytes(16));
    const result = await this.context.run(
      Streams.routine(routineId),
      routineDecider,
      {
        type: 'CreateRoutine',
        routineId,
        definition,
        knownAccountIds: this.knownAccountIds(),
        now: this.context.nowIso(),
      },
      call,
    );
    return isRejection(result) ? result : this.current(routineId);
  }

  /** After a change the webhook's safety block is reassessed: making it safer lifts the block. */
  async update(routineId: string, changes: Partial<RoutineDefinition>, call: AdminCall): Promise<RoutineView | Rejection> {
    await this.context.freshRoutine(routineId);
    const result = await this.context.run(
      Streams.routine(routineId),
      routineDecider,
      {
        type: 'UpdateRoutine',
        routineId,
        changes,
        knownAccountIds: this.knownAccountIds(),
        now: this.context.nowIso(),
      },
      call,
    );
    if (isRejection(result)) return result;
    const webhook = this.context.config.webhookOfRoutine(routineId);
    if (webhook && result.state) {
      const reassessed = await this.context.run(
        Streams.webhook(webhook.webhookId),
        webhookDecider,
        {
          type: 'ReassessSafety',
          safety: judgeRoutineSafety(result.state),
          now: this.context.nowIso(),
        },
        call,
      );
      if (isRejection(reassessed)) return reassessed;
    }
    return this.current(routineId);
  }

  async get(routineId: string): Promise<RoutineView | Rejection> {
    await this.context.fresh([Streams.routine(routineId)]);
    return this.current(routineId);
  }

  /** Every routine, the most recently created first (the Config page's list). */
  list(): RoutineState[] {
    return this.context.config.routinesNewestFirst();
  }

  private current(routineId: string): RoutineView | Rejection {
    const routine = this.context.config.routine(routineId);
    return routine ? toRoutineView(routine) : reject('routine_not_found', `no routine ${routineId}`);
  }

  private knownAccountIds(): ReadonlySet<string> {
    return new Set(this.context.config.accounts().accounts.keys());
  }
}
