import { ACCOUNT_CATALOG_STREAM, Streams, type Event } from '@wts/contracts';
import type { Decider, Rejection } from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import type { AdminCall } from '../access/admin-call';
import type { ConfigurationFreshness } from '../configuration/configuration.feeder';
import type { ConfigurationState } from '../configuration/configuration.state';
import { handleCommand } from './command.handler';
import { causedBy, type CausationContext } from './event-envelope';
import type { Clock, RandomSource } from './runtime.port';
import { childTraceparent } from './trace-context';

/** What the admin services and the trigger use case need, bundled so constructors stay small. */
export class UseCaseContext {
  constructor(
    readonly store: EventStore,
    readonly config: ConfigurationState,
    readonly clock: Clock,
    readonly random: RandomSource,
    private readonly freshness: ConfigurationFreshness,
  ) {}

  /** Folds every change committed to these streams (by any replica) before a decision reads them. */
  fresh(streamIds: readonly string[]): Promise<void> {
    return this.freshness.ensureFresh(streamIds);
  }

  /** The account catalog, the routine and its webhook (claim and lifecycle), all current. */
  async freshRoutine(routineId: string): Promise<void> {
    await this.fresh([ACCOUNT_CATALOG_STREAM, Streams.routine(routineId), Streams.webhookSlot(routineId)]);
    const webhookId = this.config.webhookIdOfRoutine(routineId);
    if (webhookId !== undefined) await this.fresh([Streams.webhook(webhookId)]);
  }

  /** The causation of an admin request's writes: its own id, its trace continued, its actor. */
  causation(call: AdminCall): CausationContext {
    const requestId = this.random.uuid();
    return causedBy(requestId, requestId, childTraceparent(call.traceparent, this.random), call.actor);
  }

  nowIso(): string {
    return this.clock.now().toISOString();
  }

  /**
   * Runs a command the service decides by itself (a hold's expiry): no actor in the metadata — the
   * audit trail names no operator for it. The state then includes what it wrote.
   */
  async runAsService<C, E extends Event, S>(streamId: string, decider: Decider<C, E, S>, command: C): Promise<readonly E[] | Rejection> {
    const requestId = this.random.uuid();
    const context = causedBy(requestId, requestId, childTraceparent(undefined, this.random));
    const result = await handleCommand(this.store, streamId, decider, command, context, () => this.random.uuid());
    if (result.kind === 'rejected') return result;
    await this.freshness.catchUpStream(streamId);
    return result.events;
  }

  /**
   * Runs an admin command against one stream, as `call`'s actor (in the metadata of every event it
   * writes); the state then includes what it wrote (read-your-writes).
   */
  async run<C, E extends Event, S>(
    streamId: string,
    decider: Decider<C, E, S>,
    command: C,
    call: AdminCall,
  ): Promise<{ events: readonly E[]; state: S } | Rejection> {
    const result = await handleCommand(this.store, streamId, decider, command, this.causation(call), () => this.random.uuid());
    if (result.kind === 'rejected') return result;
    await this.freshness.catchUpStream(streamId);
    return { events: result.events, state: result.state };
  }
}
