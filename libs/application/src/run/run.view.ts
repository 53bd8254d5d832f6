import type { PayloadRecord, RunCreated, TriggerAccount } from '@wts/contracts';

export interface TriggerAccountView {
  readonly account_id: string;
  readonly email: string;
}

export const toTriggerAccountView = (account: TriggerAccount): TriggerAccountView => ({
  account_id: account.accountId,
  email: account.email,
});

/** A run as listings show it. */
export interface RunListItem {
  readonly run_id: string;
  readonly routine_id: string;
  readonly webhook_id: string;
  readonly delivery_id: string;
  readonly trigger_account: TriggerAccountView;
  readonly status: string;
  readonly created_at: string;
}

/** A run as `GET /admin/runs/:id` shows it: the listing's fields, and what it runs with. */
export interface RunView extends RunListItem {
  readonly initial_message: string;
  /** Untrusted data: JSON text (format json) or the raw text (format text). Render as text. */
  readonly payload: PayloadRecord;
  readonly routine: {
    readonly name: string;
    readonly tools: readonly { readonly name: string; readonly sends_externally: boolean }[];
    readonly instructions: string;
    readonly mode: string;
  };
}

/** The run record; the payload comes from the delivery (stored once, in DeliveryAccepted). */
export function toRunView(run: RunCreated['data'], payload: PayloadRecord): RunView {
  return {
    run_id: run.runId,
    routine_id: run.routineId,
    webhook_id: run.webhookId,
    delivery_id: run.deliveryId,
    trigger_account: toTriggerAccountView(run.triggerAccount),
    status: run.status,
    created_at: run.createdAt,
    initial_message: run.initialMessage,
    payload,
    routine: {
      name: run.routine.name,
      tools: run.routine.tools.map((tool) => ({ name: tool.name, sends_externally: tool.sendsExternally })),
      instructions: run.routine.instructions,
      mode: run.routine.mode,
    },
  };
}
