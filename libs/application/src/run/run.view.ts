import type { PayloadRecord, RunCreated, TriggerAccount } from '@wts/contracts';
import { runInitialMessage } from '@wts/domain';
import type { RunRow, TriggerAccountRow } from '@wts/read-models';
import type { PayloadLookup } from '../payload/payload.reader';

/** An event's trigger account as the read model's rows and the admin API carry it. */
export const toTriggerAccountRow = (account: TriggerAccount): TriggerAccountRow => ({
  account_id: account.accountId,
  email: account.email,
});

/** A run as `GET /admin/runs/:id` shows it: the listing's fields (its row), and what it runs with. */
export interface RunView extends RunRow {
  /** The payload framed as untrusted data; null once the payload is removed. */
  readonly initial_message: string | null;
  /** Untrusted data: JSON text (format json) or the raw text (format text). Render as text. Null once removed. */
  readonly payload: PayloadRecord | null;
  readonly payload_state: 'kept' | 'expired' | 'erased';
  readonly payload_removed_at: string | null;
  readonly routine: {
    readonly name: string;
    readonly tools: readonly { readonly name: string; readonly sends_externally: boolean }[];
    readonly instructions: string;
    readonly mode: string;
  };
}

/** The run record, with its delivery's payload (stored once, apart) and the message framing it, made on read. */
export function toRunView(run: RunCreated['data'], stored: PayloadLookup): RunView {
  const payload = stored.state === 'kept' ? stored.payload : null;
  return {
    run_id: run.runId,
    routine_id: run.routineId,
    webhook_id: run.webhookId,
    delivery_id: run.deliveryId,
    trigger_account: toTriggerAccountRow(run.triggerAccount),
    status: run.status,
    created_at: run.createdAt,
    initial_message: payload === null ? null : runInitialMessage(run, payload),
    payload,
    payload_state: stored.state,
    payload_removed_at: stored.state === 'kept' ? null : stored.removedAt.toISOString(),
    routine: {
      name: run.routine.name,
      tools: run.routine.tools.map((tool) => ({ name: tool.name, sends_externally: tool.sendsExternally })),
      instructions: run.routine.instructions,
      mode: run.routine.mode,
    },
  };
}
