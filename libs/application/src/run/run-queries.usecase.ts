import { Streams, type RunEvent } from '@wts/contracts';
import { reject, type Rejection } from '@wts/domain';
import type { EventStore } from '@wts/event-store';
import type { ServiceReadModel } from '../projection/service.read-model';
import { asEvent } from '../shared/event-envelope';
import { toRunView, toTriggerAccountView, type RunView, type TriggerAccountView } from './run.view';

export interface DeliveryListItem {
  readonly delivery_id: string;
  readonly run_id: string;
  readonly received_at: string;
  readonly trigger_account: TriggerAccountView;
  readonly content_type: string;
  readonly idempotency_key: string | null;
}

export interface RunListItem {
  readonly run_id: string;
  readonly routine_id: string;
  readonly webhook_id: string;
  readonly delivery_id: string;
  readonly trigger_account: TriggerAccountView;
  readonly status: string;
  readonly created_at: string;
}

/** Deliveries and runs for operators and the Config page, newest first. */
export class RunQueriesUseCase {
  constructor(
    private readonly store: EventStore,
    private readonly readModel: ServiceReadModel,
  ) {}

  deliveries(routineId: string, limit: number): DeliveryListItem[] | Rejection {
    if (!this.readModel.routine(routineId)) return reject('routine_not_found', `no routine ${routineId}`);
    return this.readModel.deliveriesOf(routineId, limit).map((d) => ({
      delivery_id: d.deliveryId,
      run_id: d.runId,
      received_at: d.receivedAt,
      trigger_account: toTriggerAccountView(d.triggerAccount),
      content_type: d.contentType,
      idempotency_key: d.idempotencyKey,
    }));
  }

  runs(routineId: string, limit: number): RunListItem[] | Rejection {
    if (!this.readModel.routine(routineId)) return reject('routine_not_found', `no routine ${routineId}`);
    return this.readModel.runsOf(routineId, limit).map((r) => ({
      run_id: r.runId,
      routine_id: r.routineId,
      webhook_id: r.webhookId,
      delivery_id: r.deliveryId,
      trigger_account: toTriggerAccountView(r.triggerAccount),
      status: r.status,
      created_at: r.createdAt,
    }));
  }

  /** Read from the store, not the read model: 404 exactly until the dispatcher has created it. */
  async run(runId: string): Promise<RunView | Rejection> {
    if (!/^run_[A-Za-z0-9_-]{16,128}$/.test(runId)) return reject('run_not_found', `no run ${runId}`);
    const recorded = await this.store.readStream(Streams.run(runId));
    if (recorded.length === 0) return reject('run_not_found', `no run ${runId}`);
    return toRunView(asEvent<RunEvent>(recorded[0]).data);
  }
}
