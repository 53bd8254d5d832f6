/** A small client for the admin API and the public endpoint over real HTTP. */
export class AdminClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  /** An account, a supervised routine scoped to it and an enabled webhook: returns url and secret. */
  async setUpWebhook(email = 'ops@example.com'): Promise<{ routineId: string; accountId: string; url: string; secret: string }> {
    const account = await this.call<{ id: string }>('POST', '/admin/accounts', { email });
    const routine = await this.call<{ id: string }>('POST', '/admin/routines', {
      name: 'Triage',
      instructions: 'Triage the alert.',
      tools: [{ name: 'search', sends_externally: false }],
      mode: 'supervised',
      account_scope: [account.body.id],
    });
    const webhook = await this.call<{ url: string; secret: string }>('POST', `/admin/routines/${routine.body.id}/webhook/enable`, {
      default_account: email,
      account_override_allowed: true,
    });
    if (webhook.status !== 200) throw new Error(`enable failed: ${JSON.stringify(webhook.body)}`);
    return { routineId: routine.body.id, accountId: account.body.id, url: webhook.body.url, secret: webhook.body.secret };
  }
}
