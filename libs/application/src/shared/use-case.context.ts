import type { EventStore } from '@wts/event-store';
import type { ReadModelFreshness } from '../projection/read-model.feeder';
import type { ServiceReadModel } from '../projection/service.read-model';
import { handleCommand } from './command.handler';
import type { Clock, RandomSource } from './runtime.ports';
import { childTraceparent } from './trace-context';
import type { Decider, Rejection } from '@wts/domain';
import type { Event } from '@wts/contracts';

/** What every admin use case needs, bundled so constructors stay small. */
export class UseCaseContext {
  constructor(
    readonly store: EventStore,
    readonly readModel: ServiceReadModel,
    readonly clock: Clock,
    readonly random: RandomSource,
    private readonly freshness: ReadModelFreshness,
  ) {}

  /** Folds every change committed before now (by any replica) before a decision reads the model. */
  fresh(): Promise<void> {
    return this.freshness.catchUp();
  }

  nowIso(): string {
    return this.clock.now().toISOString();
  }

  /** Runs a command against one stream and waits until the read model has seen the result. */
  async run<C, E extends Event, S>(
    streamId: string,
    decider: Decider<C, E, S>,
    command: C,
    traceparent?: string,
  ): Promise<{ events: readonly E[]; state: S } | Rejection> {
    const requestId = this.random.uuid();
    const result = await handleCommand(
      this.store,
      streamId,
      decider,
      command,
      { correlationId: requestId, causationId: requestId, traceparent: childTraceparent(traceparent, this.random) },
      () => this.random.uuid(),
    );
    if (result.kind === 'rejected') return result;
    await this.readModel.waitFor(result.position);
    return { events: result.events, state: result.state };
  }
}
