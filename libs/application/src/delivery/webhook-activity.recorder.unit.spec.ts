import type { AttemptRow, AuditRow, ReadModelStore } from '@wts/read-models';
import { BatchedActivityRecorder, type ActivityRecorderOptions, type RejectedAttempt } from './webhook-activity.recorder';

/** The two writes the recorder makes, kept in memory; the next `fail…` writes of each kind throw. */
class WritesSeen {
  readonly attempts: AttemptRow[][] = [];
  readonly replays: string[][] = [];
  readonly denied: { rows: AuditRow[]; keep: number }[] = [];
  failAttempts = 0;
  failReplays = 0;

  asStore(): ReadModelStore {
    return {
      recordAttempts: async (attempts: readonly AttemptRow[]) => {
        if (this.failAttempts-- > 0) throw new Error('database down');
        this.attempts.push([...attempts]);
      },
      recordReplays: async (ids: readonly string[]) => {
        if (this.failReplays-- > 0) throw new Error('database down');
        this.replays.push([...ids]);
      },
      recordDeniedAccess: async (rows: readonly AuditRow[], keep: number) => {
        this.denied.push({ rows: [...rows], keep });
      },
    } as unknown as ReadModelStore;
  }

  /** A recorder writing here: flushed by the test (once a minute by itself), at most 100 records pending. */
  recorder(
    onError: (error: unknown, dropped: number) => void = () => undefined,
    options: Partial<ActivityRecorderOptions> = {},
  ): BatchedActivityRecorder {
    return new BatchedActivityRecorder(this.asStore(), onError, {
      keepPerWebhook: 100,
      keepDeniedAccess: 100,
      flushEveryMs: 60_000,
      maxPending: 100,
      ...options,
    });
  }
}

const attempt = (n: number): RejectedAttempt => ({
  webhookId: 'whk_A',
  reason: 'wrong_secret',
  at: `2024-05-01T12:00:0${n % 10}.000Z`,
  sourceAddress: '203.0.113.1',
});

describe('BatchedActivityRecorder', () => {
  it('given records, then nothing is written until a flush, and a flush writes them in one batch each', async () => {
    const seen = new WritesSeen();
    const recorder = seen.recorder();
    recorder.recordAttempt(attempt(1));
    recorder.recordAttempt(attempt(2));
    recorder.recordReplay('dlv_A');
    recorder.recordReplay('dlv_A');
    expect(seen.attempts).toEqual([]);
    await recorder.flush();
    expect(seen.attempts).toEqual([[attempt(1), attempt(2)]]);
    expect(seen.replays).toEqual([['dlv_A', 'dlv_A']]);
    await recorder.flush();
    expect(seen.attempts).toHaveLength(1);
  });

  it('given the database down, then the records are kept, reported, and written once it is back (no duplicates)', async () => {
    const seen = new WritesSeen();
    const errors: unknown[] = [];
    const recorder = seen.recorder((error) => errors.push(error));
    recorder.recordAttempt(attempt(1));
    recorder.recordReplay('dlv_A');
    seen.failAttempts = 1;
    await recorder.flush();
    expect(errors).toHaveLength(1);
    expect(seen.attempts).toEqual([]);
    await recorder.flush();
    expect(seen.attempts).toEqual([[attempt(1)]]);
    expect(seen.replays).toEqual([['dlv_A']]);
    await recorder.stop();
  });

  it('given attempts written but replays failing, then only the replays are written again', async () => {
    const seen = new WritesSeen();
    const recorder = seen.recorder();
    recorder.recordAttempt(attempt(3));
    recorder.recordReplay('dlv_B');
    seen.failReplays = 1;
    await recorder.flush();
    await recorder.flush();
    expect(seen.attempts).toEqual([[attempt(3)]]);
    expect(seen.replays).toEqual([['dlv_B']]);
  });

  it('given more records than it may hold while the database is down, then it keeps the newest and counts what it dropped', async () => {
    const seen = new WritesSeen();
    const dropped: number[] = [];
    const recorder = seen.recorder((_error, count) => dropped.push(count), { maxPending: 3 });
    for (let n = 1; n <= 5; n += 1) recorder.recordAttempt(attempt(n));
    seen.failAttempts = 1;
    await recorder.flush();
    expect(dropped).toEqual([2]);
    await recorder.flush();
    expect(seen.attempts).toEqual([[attempt(3), attempt(4), attempt(5)]]);
  });

  it('writes by itself shortly after a record (no flush needed)', async () => {
    const seen = new WritesSeen();
    const recorder = seen.recorder(() => undefined, { flushEveryMs: 5 });
    recorder.recordAttempt(attempt(1));
    for (let i = 0; i < 100 && seen.attempts.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen.attempts).toEqual([[attempt(1)]]);
  });

  it('writes denied admin attempts in one batch, with how many the database keeps', async () => {
    const seen = new WritesSeen();
    const recorder = seen.recorder(undefined, { keepDeniedAccess: 7 });
    const denial = (n: number): AuditRow => ({
      entryId: `e${n}`,
      at: `2026-11-25T10:00:0${n}.000Z`,
      actor: null,
      action: 'POST /admin/routines/:id/webhook/rotate',
      targetType: 'routine',
      targetId: 'rtn_x',
      routineId: 'rtn_x',
      webhookId: null,
      outcome: 'denied',
      traceId: null,
      detail: 'no_credential',
    });
    recorder.recordDeniedAccess(denial(1));
    recorder.recordDeniedAccess(denial(2));
    expect(seen.denied).toEqual([]);
    await recorder.flush();
    expect(seen.denied).toEqual([{ rows: [denial(1), denial(2)], keep: 7 }]);
  });
});
