import { Streams, type WebhookIdAssigned } from '@wts/contracts';
import { asEvent, toAppend } from '../shared/event-envelope';
import {
  digestSecret,
  idFromBytes,
  isRejection,
  judgeRoutineSafety,
  matchActiveAccount,
  reject,
  webhookDecider,
  type Rejection,
  type RoutineState,
} from '@wts/domain';
import type { AdminCall } from '../access/admin-call';
import type { UseCaseContext } from '../shared/use-case.context';
import { toWebhookView, type WebhookView } from './webhook.view';

export interface EnableWebhookInput {
  readonly defaultAccount: string;
  readonly accountOverrideAllowed: boolean;
}

/** The view plus the secret: only the answers to enable and rotate carry it, once. */
export type WebhookWithSecret = WebhookView & { readonly secret: string };

/** Enable, rotate, disable: the Config page's Webhook section. */
export class WebhookAdminService {
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly context: UseCaseContext,
    private readonly publicBaseUrl: string,
  ) {}

  /** The webhook as it is now (changes made through any replica included). */
  async view(routineId: string): Promise<WebhookView | Rejection> {
    await this.context.freshRoutine(routineId);
    return this.current(routineId);
  }

  /** The webhook as folded in this process (no look at the store). */
  current(routineId: string): WebhookView | Rejection {
    const routine = this.context.config.routine(routineId);
    if (!routine) return reject('routine_not_found', `no routine ${routineId}`);
    return toWebhookView(this.publicBaseUrl, routine, this.context.config.webhookOfRoutine(routineId));
  }

  enable(routineId: string, input: EnableWebhookInput, call: AdminCall): Promise<WebhookWithSecret | Rejection> {
    return this.serialised(routineId, async () => {
      await this.context.freshRoutine(routineId);
      const routine = this.context.config.routine(routineId);
      if (!routine) return reject('routine_not_found', `no routine ${routineId}`);
      const defaultAccount = matchActiveAccount(this.context.config.accounts(), input.defaultAccount);
      if (!defaultAccount || !routine.accountScope.includes(defaultAccount.accountId)) {
        return reject('default_account_invalid', "default_account must be an active account inside the routine's account scope");
      }
      const webhookId = await this.claimWebhookId(routineId, call);
      await this.context.fresh([Streams.webhookSlot(routineId)]);
      const secret = this.newSecret();
      const result = await this.context.run(
        Streams.webhook(webhookId),
        webhookDecider,
        {
          type: 'EnableWebhook',
          webhookId,
          routineId,
          secretDigest: digestSecret(secret),
          defaultAccount,
          accountOverrideAllowed: input.accountOverrideAllowed,
          safety: judgeRoutineSafety(routine),
          now: this.context.nowIso(),
        },
        call,
      );
      return isRejection(result) ? result : this.withSecret(routine, secret);
    });
  }

  rotate(routineId: string, call: AdminCall): Promise<WebhookWithSecret | Rejection> {
    return this.serialised(routineId, async () => {
      await this.context.freshRoutine(routineId);
      const found = this.configured(routineId);
      if (isRejection(found)) return found;
      const secret = this.newSecret();
      const result = await this.context.run(
        Streams.webhook(found.webhookId),
        webhookDecider,
        {
          type: 'RotateSecret',
          secretDigest: digestSecret(secret),
          now: this.context.nowIso(),
        },
        call,
      );
      return isRejection(result) ? result : this.withSecret(found.routine, secret);
    });
  }

  disable(routineId: string, call: AdminCall): Promise<WebhookView | Rejection> {
    return this.serialised(routineId, async () => {
      await this.context.freshRoutine(routineId);
      const found = this.configured(routineId);
      if (isRejection(found)) return found;
      const result = await this.context.run(
        Streams.webhook(found.webhookId),
        webhookDecider,
        {
          type: 'DisableWebhook',
          now: this.context.nowIso(),
        },
        call,
      );
      return isRejection(result) ? result : this.current(routineId);
    });
  }

  private configured(routineId: string): { routine: RoutineState; webhookId: string } | Rejection {
    const routine = this.context.config.routine(routineId);
    if (!routine) return reject('routine_not_found', `no routine ${routineId}`);
    const webhook = this.context.config.webhookOfRoutine(routineId);
    if (!webhook) return reject('webhook_not_configured', 'the routine has no webhook yet: enable it first');
    return { routine, webhookId: webhook.webhookId };
  }

  /** The routine's one webhook id: read the claim, or make it with "stream must not exist". */
  private async claimWebhookId(routineId: string, call: AdminCall): Promise<string> {
    const stream = Streams.webhookSlot(routineId);
    for (;;) {
      const claimed = await this.context.store.readStream(stream);
      if (claimed.length > 0) return asEvent<WebhookIdAssigned>(claimed[0]).data.webhookId;
      const webhookId = idFromBytes('webhook', this.context.random.bytes(16));
      const assigned: WebhookIdAssigned = { type: 'WebhookIdAssigned', data: { routineId, webhookId, assignedAt: this.context.nowIso() } };
      const result = await this.context.store.append(
        stream,
        toAppend([assigned], this.context.causation(call), () => this.context.random.uuid()),
        'no_stream',
      );
      if (result.kind === 'appended') return webhookId;
    }
  }

  private withSecret(routine: RoutineState, secret: string): WebhookWithSecret {
    const webhook = this.context.config.webhookOfRoutine(routine.routineId);
    return { ...toWebhookView(this.publicBaseUrl, routine, webhook), secret };
  }

  private newSecret(): string {
    return idFromBytes('secret', this.context.random.bytes(32));
  }

  /** One admin change per routine at a time in this process (the first enable mints the id). */
  private serialised<T>(routineId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(routineId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(routineId, settled);
    void settled.then(() => {
      if (this.locks.get(routineId) === settled) this.locks.delete(routineId);
    });
    return next;
  }
}
