/**
 * The admin API as the tests use it: accounts, routines and webhooks set up in one call each, and
 * the listings (deliveries, runs), which follow the store within milliseconds, waited for.
 */
import { eventually } from '@wts/testing';
import { IngressHttpClient, type HttpResult, type Json } from './ingress-http.client';

export interface AccountBody {
  readonly id: string;
  readonly email: string;
  readonly aliases: string[];
  readonly active: boolean;
  readonly primary: boolean;
}

export interface RoutineInput {
  name?: string;
  instructions?: string;
  tools?: { name: string; sends_externally: boolean }[];
  mode?: 'supervised' | 'autonomous';
  account_scope: string[];
}

export interface EnabledWebhook {
  readonly webhook_id: string;
  readonly url: string;
  readonly secret: string;
  readonly state: string;
  readonly default_account: string;
  readonly account_override_allowed: boolean;
}

export interface WebhookFixture {
  readonly account: AccountBody;
  readonly routineId: string;
  readonly webhook: EnabledWebhook;
  readonly webhookId: string;
  readonly secret: string;
}

/** A webhook enabled with a signed verification scheme: the answer to enable (`secret` is the one made, null when pasted). */
export interface SignedWebhookFixture {
  readonly account: AccountBody;
  readonly routineId: string;
  readonly webhookId: string;
  readonly answer: Json;
}

/** How often the listing waits look again. */
const POLL_MS = 25;

export class IngressAdminClient extends IngressHttpClient {
  private seq = 0;

  // ---------------------------------------------------------------- set-up

  uniqueEmail(prefix = 'user'): string {
    this.seq += 1;
    return `${prefix}${this.seq}@example.com`;
  }

  async createAccount(input: { email?: string; aliases?: string[]; primary?: boolean } = {}): Promise<AccountBody> {
    const { email, ...rest } = input;
    return this.adminOk('POST', '/admin/accounts', { email: email ?? this.uniqueEmail(), ...rest }, 201) as Promise<AccountBody>;
  }

  async patchAccount(id: string, changes: { aliases?: string[]; active?: boolean; primary?: boolean }): Promise<AccountBody> {
    return this.adminOk('PATCH', `/admin/accounts/${id}`, changes, 200) as Promise<AccountBody>;
  }

  async createRoutine(input: RoutineInput): Promise<Json> {
    return this.adminOk(
      'POST',
      '/admin/routines',
      {
        name: input.name ?? 'Test routine',
        instructions: input.instructions ?? 'Summarise the delivery.',
        tools: input.tools ?? [{ name: 'search', sends_externally: false }],
        mode: input.mode ?? 'supervised',
        account_scope: input.account_scope,
      },
      201,
    );
  }

  /** Enables the routine's webhook (200 expected); `more` adds fields to the body (verification, payload_retention_days). */
  async enableWebhook(
    routineId: string,
    defaultAccount: string,
    accountOverrideAllowed = false,
    more: Record<string, unknown> = {},
  ): Promise<EnabledWebhook> {
    return this.adminOk(
      'POST',
      `/admin/routines/${routineId}/webhook/enable`,
      { default_account: defaultAccount, account_override_allowed: accountOverrideAllowed, ...more },
      200,
    ) as Promise<EnabledWebhook>;
  }

  /** One account, one routine scoped to it, an enabled webhook with that account as default. */
  async setupWebhook(
    options: { accountOverrideAllowed?: boolean; routine?: Partial<RoutineInput>; account?: AccountBody } = {},
  ): Promise<WebhookFixture> {
    const account = options.account ?? (await this.createAccount());
    const routine = await this.createRoutine({ account_scope: [account.id], ...options.routine });
    const webhook = await this.enableWebhook(routine.id, account.email, options.accountOverrideAllowed ?? false);
    return { account, routineId: routine.id, webhook, webhookId: webhook.webhook_id, secret: webhook.secret };
  }

  /** One account, one routine scoped to it, its webhook enabled with `verification` (a signed scheme: the override off). */
  async setupSignedWebhook(verification: {
    readonly scheme: string;
    readonly [field: string]: string | undefined;
  }): Promise<SignedWebhookFixture> {
    const account = await this.createAccount();
    const routine = await this.createRoutine({ account_scope: [account.id] });
    const answer: Json = await this.enableWebhook(routine.id, account.email, false, { verification });
    return { account, routineId: routine.id, webhookId: answer.webhook_id, answer };
  }

  // ---------------------------------------------------------------- listings

  async deliveries(routineId: string): Promise<Json[]> {
    return ((await this.adminOk('GET', `/admin/routines/${routineId}/webhook/deliveries`, undefined, 200)) as { deliveries: Json[] })
      .deliveries;
  }

  /** The newest runs of the routine (the first page: `limit` of them, 100 unless given). */
  async runs(routineId: string, limit?: number): Promise<Json[]> {
    const query = limit === undefined ? '' : `?limit=${limit}`;
    return ((await this.adminOk('GET', `/admin/routines/${routineId}/runs${query}`, undefined, 200)) as { runs: Json[] }).runs;
  }

  /** Waits until the runs listing of the routine holds `count` entries (listings follow the store within milliseconds). */
  async waitForRuns(routineId: string, count: number, timeoutMs = 10_000): Promise<Json[]> {
    return eventually(
      async () => {
        const list = await this.runs(routineId, Math.min(1000, Math.max(count, 100)));
        return list.length >= count ? list : undefined;
      },
      timeoutMs,
      `${count} runs`,
      POLL_MS,
    );
  }

  /** Waits until the deliveries listing of the routine holds `count` entries. */
  async waitForDeliveries(routineId: string, count: number): Promise<Json[]> {
    return eventually(
      async () => {
        const list = await this.deliveries(routineId);
        return list.length >= count ? list : undefined;
      },
      5000,
      `${count} deliveries`,
      POLL_MS,
    );
  }

  /** Waits until the deliveries listing of the routine shows `deliveryId`; returns the item. */
  async waitForDelivery(routineId: string, deliveryId: string): Promise<Json> {
    return eventually(
      async () => (await this.deliveries(routineId)).find((item: Json) => item.delivery_id === deliveryId),
      5000,
      `delivery ${deliveryId}`,
      POLL_MS,
    );
  }

  /** Waits until the runs listing of the routine shows `runId` (the listing follows the store, after GET /admin/runs/{id} does); returns the item. */
  async waitForListedRun(routineId: string, runId: string, timeoutMs = 8000): Promise<Json> {
    return eventually(
      async () => (await this.runs(routineId)).find((item: Json) => item.run_id === runId),
      timeoutMs,
      `run ${runId} listed`,
      POLL_MS,
    );
  }

  /** Polls GET /admin/runs/{id} until the dispatcher has created the run. */
  async waitForRun(runId: string): Promise<HttpResult> {
    return eventually(
      async () => {
        const result = await this.admin('GET', `/admin/runs/${runId}`);
        return result.status === 200 ? result : undefined;
      },
      8000,
      `run ${runId}`,
      POLL_MS,
    );
  }
}
