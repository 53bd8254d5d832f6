import type { Client, ClientConfig } from 'pg';

/**
 * The projector lease: a session advisory lock on a connection of its own (a pooled connection
 * would hand the lock to whatever query borrows it next, and lose it when the pool recycles it).
 * The server releases the lock when that session ends, so the lease is held exactly as long as
 * the connection lives: its 'error' / 'end' events end the lease here too, and a periodic
 * `SELECT 1` notices a server that stopped answering without closing the socket.
 */
export class PostgresProjectorLease {
  private client: Client | undefined;
  private held = false;
  private closed = false;
  private heartbeat: NodeJS.Timeout | undefined;
  /** One attempt at a time: two racing calls would otherwise open two sessions and leak one. */
  private acquiring: Promise<boolean> | undefined;

  constructor(
    private readonly config: ClientConfig,
    /** int8 as a decimal string. */
    private readonly lockKey: string,
    private readonly heartbeatMs: number,
  ) {}

  get holds(): boolean {
    return this.held;
  }

  tryAcquire(): Promise<boolean> {
    this.acquiring ??= this.acquire().finally(() => {
      this.acquiring = undefined;
    });
    return this.acquiring;
  }

  private async acquire(): Promise<boolean> {
    if (this.held) return true;
    const client = this.client ?? (await this.connect());
    try {
      const { rows } = await client.query<{ acquired: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS acquired', [this.lockKey]);
      // The connection may have been lost (or the store closed) while the answer was on its way.
      this.held = rows[0]?.acquired === true && this.client === client;
      if (this.held) this.startHeartbeat(client);
      return this.held;
    } catch (error) {
      await this.drop(client);
      throw error;
    }
  }

  /** Ending the session releases the lock on the server. */
  async release(): Promise<void> {
    this.closed = true;
    const client = this.client;
    if (client) await this.drop(client);
  }

  private async connect(): Promise<Client> {
    if (this.closed) throw new Error('the lease is released');
    const { Client: PgClient } = await import('pg');
    const client = new PgClient(this.config);
    // Without listeners an 'error' on an idle client (server shutdown, pg_terminate_backend) would crash the process.
    client.on('error', () => void this.drop(client));
    client.on('end', () => void this.drop(client));
    try {
      await client.connect();
    } catch (error) {
      // Not awaited: a client that never connected has nothing to wait for.
      client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      throw new Error('the lease is released');
    }
    this.client = client;
    return client;
  }

  private startHeartbeat(client: Client): void {
    this.stopHeartbeat();
    this.heartbeat = setInterval(() => {
      client.query('SELECT 1').catch(() => this.drop(client));
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private async drop(client: Client): Promise<void> {
    if (this.client !== client) return;
    this.client = undefined;
    this.held = false;
    this.stopHeartbeat();
    await client.end().catch(() => undefined);
  }
}
