import { WorkerThreadChannel, workerThreadScript } from '@wts/event-store';
import { Worker } from 'node:worker_threads';
import type { HourlyCount } from '../hourly-activity';
import { ReadModelUnavailableError, type AttemptRow, type AuditRow, type DeniedAccessBounds } from '../read-model.port';
import type { ActivityRequest, ActivityWorkerData } from './sqlite-activity.protocol';

/** A request as sent: the channel gives it its id. */
type Outgoing = ActivityRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/**
 * The main thread's side of sqlite-activity.thread: each write is a message, its promise settles
 * once the thread committed it. If the thread dies, pending and later writes fail as "read model
 * unavailable" (the recorder keeps their records for a later try).
 */
export class SqliteActivityWriter {
  private constructor(private readonly channel: WorkerThreadChannel) {}

  static spawn(filePath: string, busyTimeoutMs: number): SqliteActivityWriter {
    const { script, entry } = workerThreadScript(__dirname, 'sqlite-activity.thread');
    const data: ActivityWorkerData & { entry: string } = { filePath, busyTimeoutMs, entry };
    return new SqliteActivityWriter(
      new WorkerThreadChannel(new Worker(script, { workerData: data }), {
        thread: "the read model's activity thread",
        unavailable: (message, cause) => new ReadModelUnavailableError(message, cause ? { cause } : undefined),
        refused: (error) => new ReadModelUnavailableError(`read model write failed on the activity thread: ${String(error)}`),
        closedMessage: 'read model is closed (activity)',
      }),
    );
  }

  recordAttempts(attempts: readonly AttemptRow[], keep: number): Promise<void> {
    return this.request({ op: 'attempts', attempts, keep });
  }

  recordReplays(counts: ReadonlyMap<string, number>): Promise<void> {
    return this.request({ op: 'replays', counts: [...counts] });
  }

  recordDeniedAccess(rows: readonly AuditRow[], bounds: DeniedAccessBounds): Promise<void> {
    return this.request({ op: 'denied', rows, bounds });
  }

  recordHourlyCounts(counts: readonly HourlyCount[], pruneBefore: string): Promise<void> {
    return this.request({ op: 'hourly', counts, pruneBefore });
  }

  close(): Promise<void> {
    return this.channel.close();
  }

  private request(message: Outgoing): Promise<void> {
    return this.channel.request<void>(message);
  }
}
