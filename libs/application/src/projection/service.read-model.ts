import {
  assertNever,
  isServiceEventType,
  type ServiceEvent,
  type TriggerAccount,
} from '@wts/contracts';
import {
  evolveAccountCatalog,
  evolveRoutine,
  evolveWebhook,
  initialAccountCatalog,
  initialWebhookState,
  type AccountCatalog,
  type ConfiguredWebhook,
  type RoutineState,
} from '@wts/domain';
import { comparePositions, START_POSITION, type GlobalPosition, type RecordedEvent } from '@wts/event-store';
import { asEvent } from '../shared/event-envelope';

export interface DeliverySummary {
  readonly deliveryId: string;
  readonly runId: string;
  readonly routineId: string;
  readonly receivedAt: string;
  readonly triggerAccount: TriggerAccount;
  readonly contentType: string;
  readonly idempotencyKey: string | null;
}

export interface RunSummary {
  readonly runId: string;
  readonly routineId: string;
  readonly webhookId: string;
  readonly deliveryId: string;
  readonly triggerAccount: TriggerAccount;
  readonly status: string;
  readonly createdAt: string;
}

/** Newest entries kept per routine for listings; older ones stay in the store. */
export const LISTING_RETENTION_PER_ROUTINE = 10_000;

/**
 * The in-memory read model each process folds from $all: the catalog the rules need, webhooks
 * by id and routine, and recent deliveries and runs. Pure folding; fed by ReadModelFeeder.
 */
export class ServiceReadModel {
  private catalog: AccountCatalog = initialAccountCatalog();
  private readonly routines = new Map<string, RoutineState>();
  private readonly webhooks = new Map<string, ConfiguredWebhook>();
  private readonly webhookByRoutine = new Map<string, string>();
  private readonly deliveries = new Map<string, DeliverySummary[]>();
  private readonly runs = new Map<string, RunSummary[]>();
  private current: GlobalPosition = START_POSITION;
  private waiters: { position: GlobalPosition; resolve: () => void }[] = [];

  get position(): GlobalPosition {
    return this.current;
  }

  apply(recorded: RecordedEvent): void {
    if (comparePositions(recorded.position, this.current) <= 0) return;
    if (isServiceEventType(recorded.type)) this.fold(asEvent<ServiceEvent>(recorded));
    this.current = recorded.position;
    this.releaseWaiters();
  }

  /** Resolves once everything up to `position` is folded in (read-your-writes). */
  waitFor(position: GlobalPosition | undefined): Promise<void> {
    if (position === undefined || comparePositions(position, this.current) <= 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ position, resolve }));
  }

  accounts(): AccountCatalog {
    return this.catalog;
  }

  routine(routineId: string): RoutineState | undefined {
    return this.routines.get(routineId);
  }

  webhook(webhookId: string): ConfiguredWebhook | undefined {
    return this.webhooks.get(webhookId);
  }

  webhookOfRoutine(routineId: string): ConfiguredWebhook | undefined {
    const webhookId = this.webhookByRoutine.get(routineId);
    return webhookId === undefined ? undefined : this.webhooks.get(webhookId);
  }

  /** Newest first. */
  deliveriesOf(routineId: string, limit: number): DeliverySummary[] {
    return newestFirst(this.deliveries.get(routineId), limit);
  }

  /** Newest first. */
  runsOf(routineId: string, limit: number): RunSummary[] {
    return newestFirst(this.runs.get(routineId), limit);
  }

  private fold(event: ServiceEvent): void {
    switch (event.type) {
      case 'AccountConnected':
      case 'AccountUpdated':
      case 'PrimaryAccountChanged':
        this.catalog = evolveAccountCatalog(this.catalog, event);
        return;
      case 'RoutineCreated':
      case 'RoutineUpdated': {
        const next = evolveRoutine(this.routines.get(event.data.routineId) ?? null, event);
        if (next) this.routines.set(next.routineId, next);
        return;
      }
      case 'WebhookEnabled':
        if (!this.webhookByRoutine.has(event.data.routineId)) this.webhookByRoutine.set(event.data.routineId, event.data.webhookId);
        this.foldWebhook(event.data.webhookId, event);
        return;
      case 'SecretRotated':
      case 'WebhookDisabled':
      case 'WebhookBlocked':
      case 'WebhookUnblocked':
        this.foldWebhook(event.data.webhookId, event);
        return;
      case 'DeliveryAccepted': {
        const { deliveryId, runId, routineId, receivedAt, triggerAccount, contentType, idempotencyKey } = event.data;
        push(this.deliveries, routineId, { deliveryId, runId, routineId, receivedAt, triggerAccount, contentType, idempotencyKey });
        return;
      }
      case 'RunCreated': {
        const { runId, routineId, webhookId, deliveryId, triggerAccount, status, createdAt } = event.data;
        push(this.runs, routineId, { runId, routineId, webhookId, deliveryId, triggerAccount, status, createdAt });
        return;
      }
      case 'DispatchParked':
      case 'WebhookIdAssigned':
        return;
      default:
        assertNever(event);
    }
  }

  private foldWebhook(webhookId: string, event: Parameters<typeof evolveWebhook>[1]): void {
    const next = evolveWebhook(this.webhooks.get(webhookId) ?? initialWebhookState(), event);
    if (next.status !== 'not_configured') this.webhooks.set(webhookId, next);
  }

  private releaseWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const waiter of this.waiters) {
      if (comparePositions(waiter.position, this.current) <= 0) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key) ?? [];
  list.push(value);
  if (list.length > LISTING_RETENTION_PER_ROUTINE) list.splice(0, list.length - LISTING_RETENTION_PER_ROUTINE);
  map.set(key, list);
}

function newestFirst<T>(list: readonly T[] | undefined, limit: number): T[] {
  if (!list) return [];
  return list.slice(Math.max(0, list.length - limit)).reverse();
}
