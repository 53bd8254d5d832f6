import { eventually } from '@wts/testing';
import type { AttemptRow, AuditRow, DeniedAccessBounds, HourlyCount, ReadModelStore } from '@wts/read-models';
import {
  BatchedActivityRecorder,
  UNKNOWN_WEBHOOK_ATTEMPTS,
  type ActivityRecorderOptions,
  type RejectedAttempt,
} from './webhook-activity.recorder';

/** The writes the recorder makes, kept in memory; the next `fail…` writes of each kind throw. */
class WritesSeen {
  readonly attempts: AttemptRow[][] = [];
  readonly replays: string[][] = [];
  readonly denied: { rows: AuditRow[]; bounds: DeniedAccessBounds }[] = [];
  readonly hourly: { counts: HourlyCount[]; pruneBefore: string }[] = [];
  failAttempts = 0;
  failReplays = 0;
  failDenied = 0;
  failHourly = 0;

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
      recordDeniedAccess: async (rows: readonly AuditRow[], bounds: DeniedAccessBounds) => {
        if (this.failDenied-- > 0) throw new Error('database down');
        this.denied.push({ rows: [...rows], bounds });
      },
      recordHourlyCounts: async (counts: readonly HourlyCount[], pruneBefore: string) => {
        if (this.failHourly-- > 0) throw new Error('database down');
        this.hourly.push({ counts: [...counts], pruneBefore });
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
      keepDeniedAccess: { perSource: 100, overall: 100 },
      flushEveryMs: 60_000,
      maxPending: 100,
      ...options,
    });
  }
}

/** A refused admin call from `sourceAddress`; `actor`: the credential named someone (a revoked key). */
const denial = (n: number, sourceAddress = '203.0.113.1', actor: AuditRow['actor'] = null): AuditRow => ({
  entryId: `e${n}`,
  at: `2026-11-25T10:00:${String(n % 60).padStart(2, '0')}.000Z`,
  actor,
  action: 'POST /admin/routines/:id/webhook/rotate',
  targetType: 'routine',
  targetId: 'rtn_x',
  routineId: 'rtn_x',
  webhookId: null,
  outcome: 'denied',
  traceId: null,
  detail: actor ? 'api_key_revoked' : 'no_credential',
  sourceAddress,
});

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
    await eventually(() => seen.attempts.length > 0, 500, 'the recorder to write by itself', 5);
    expect(seen.attempts).toEqual([[attempt(1)]]);
  });

  it('writes denied admin attempts in one batch, with how many the database keeps', async () => {
    const seen = new WritesSeen();
    const recorder = seen.recorder(undefined, { keepDeniedAccess: { perSource: 7, overall: 70 } });
    recorder.recordDeniedAccess(denial(1));
    recorder.recordDeniedAccess(denial(2));
    expect(seen.denied).toEqual([]);
    await recorder.flush();
    expect(seen.denied).toEqual([{ rows: [denial(1), denial(2)], bounds: { perSource: 7, overall: 70 } }]);
  });

  it('given a flood of refusals from one address while the database is down, then it holds that address’s newest few and still writes the others’', async () => {
    const seen = new WritesSeen();
    const dropped: number[] = [];
    const recorder = seen.recorder((_error, count) => dropped.push(count), {
      keepDeniedAccess: { perSource: 3, overall: 100 },
      maxPending: 100,
    });
    const revokedKey = { kind: 'api_key', subject: 'key_revoked', display: 'old CI key', displayVerified: true } as const;
    recorder.recordDeniedAccess(denial(1, '198.51.100.7', revokedKey));
    recorder.recordDeniedAccess(denial(2, '198.51.100.8'));
    // 10,000 unauthenticated calls from one address, and its revoked key tried from that address too.
    for (let n = 3; n < 10_003; n += 1) recorder.recordDeniedAccess(denial(n, '203.0.113.66'));
    recorder.recordDeniedAccess(denial(10_003, '203.0.113.66', revokedKey));
    seen.failDenied = 1;
    await recorder.flush();
    expect(seen.denied).toEqual([]);
    // More of the flood while it is down: still only its newest three.
    for (let n = 10_004; n < 10_010; n += 1) recorder.recordDeniedAccess(denial(n, '203.0.113.66'));
    await recorder.flush();

    expect(seen.denied).toHaveLength(1);
    const written = seen.denied[0]?.rows.map((row) => row.entryId) ?? [];
    expect(written.sort()).toEqual(['e1', 'e10003', 'e10007', 'e10008', 'e10009', 'e2'].sort());
    expect(dropped).toEqual([10_000 - 3]);
  });

  describe('hourly counts', () => {
    const hourly = (webhookId: string, hour: string, outcome: string, count: number): HourlyCount => ({ webhookId, hour, outcome, count });
    const H13 = '2026-11-27T13:00:00.000Z';
    const H14 = '2026-11-27T14:00:00.000Z';

    it('given deliveries and refusals, then a flush writes one count per (webhook, hour, outcome), pruning 48 hours before the newest', async () => {
      const seen = new WritesSeen();
      const recorder = seen.recorder();
      recorder.recordDelivery({ webhookId: 'whk_A', outcome: 'accepted', at: '2026-11-27T13:05:00.000Z' });
      recorder.recordDelivery({ webhookId: 'whk_A', outcome: 'accepted', at: '2026-11-27T13:59:59.999Z' });
      recorder.recordDelivery({ webhookId: 'whk_A', outcome: 'accepted', at: '2026-11-27T14:00:00.000Z' });
      recorder.recordDelivery({ webhookId: 'whk_A', outcome: 'filtered', at: '2026-11-27T14:10:00.000Z' });
      recorder.recordDelivery({ webhookId: 'whk_B', outcome: 'accepted', at: '2026-11-27T13:30:00.000Z' });
      recorder.recordAttempt({ ...attempt(1), at: '2026-11-27T14:20:00.000Z' });
      recorder.recordAttempt({ ...attempt(2), reason: 'payload_schema_mismatch', at: '2026-11-27T14:21:00.000Z' });
      recorder.recordAttempt({ ...attempt(3), at: '2026-11-27T14:22:00.000Z' });
      expect(seen.hourly).toEqual([]);
      await recorder.flush();

      expect(seen.hourly).toHaveLength(1);
      expect(seen.hourly[0]?.pruneBefore).toBe('2026-11-25T14:00:00.000Z');
      expect(seen.hourly[0]?.counts).toEqual(
        expect.arrayContaining([
          hourly('whk_A', H13, 'accepted', 2),
          hourly('whk_A', H14, 'accepted', 1),
          hourly('whk_A', H14, 'filtered', 1),
          hourly('whk_B', H13, 'accepted', 1),
          hourly('whk_A', H14, 'refused:wrong_secret', 2),
          hourly('whk_A', H14, 'refused:payload_schema_mismatch', 1),
        ]),
      );
      expect(seen.hourly[0]?.counts).toHaveLength(6);
      await recorder.flush();
      expect(seen.hourly).toHaveLength(1);
    });

    it('given an unknown webhook id, then its attempt is listed under UNKNOWN_WEBHOOK_ATTEMPTS but never counted', async () => {
      const seen = new WritesSeen();
      const recorder = seen.recorder();
      const unknown = { ...attempt(1), webhookId: UNKNOWN_WEBHOOK_ATTEMPTS };
      recorder.recordAttempt(unknown);
      await recorder.flush();
      expect(seen.attempts).toEqual([[unknown]]);
      expect(seen.hourly).toEqual([]);
    });

    it('given a filter error, then it is counted as filter_error (not refused) and listed among the attempts; a handshake answered is not counted', async () => {
      const seen = new WritesSeen();
      const recorder = seen.recorder();
      recorder.recordDelivery({
        webhookId: 'whk_A',
        outcome: 'filter_error',
        at: '2026-11-27T13:01:00.000Z',
        sourceAddress: '198.51.100.4',
      });
      recorder.recordAttempt({ ...attempt(1), reason: 'handshake_answered', at: '2026-11-27T13:02:00.000Z' });
      await recorder.flush();
      expect(seen.hourly).toEqual([{ counts: [hourly('whk_A', H13, 'filter_error', 1)], pruneBefore: '2026-11-25T13:00:00.000Z' }]);
      expect(seen.attempts).toEqual([
        [
          { webhookId: 'whk_A', reason: 'filter_error', at: '2026-11-27T13:01:00.000Z', sourceAddress: '198.51.100.4' },
          { ...attempt(1), reason: 'handshake_answered', at: '2026-11-27T13:02:00.000Z' },
        ],
      ]);
    });

    it('given the database down, then the counts are held, added to those recorded since, and written once (no double count)', async () => {
      const seen = new WritesSeen();
      const errors: unknown[] = [];
      const recorder = seen.recorder((error) => errors.push(error));
      recorder.recordDelivery({ webhookId: 'whk_A', outcome: 'accepted', at: '2026-11-27T13:05:00.000Z' });
      seen.failHourly = 1;
      await recorder.flush();
      expect(errors).toHaveLength(1);
      recorder.recordDelivery({ webhookId: 'whk_A', outcome: 'accepted', at: '2026-11-27T13:06:00.000Z' });
      await recorder.flush();
      await recorder.flush();
      expect(seen.hourly).toEqual([{ counts: [hourly('whk_A', H13, 'accepted', 2)], pruneBefore: '2026-11-25T13:00:00.000Z' }]);
    });

    it('given more distinct keys than it may hold while the database is down, then it drops the increments that need a new key and counts them', async () => {
      const seen = new WritesSeen();
      const dropped: number[] = [];
      const recorder = seen.recorder((_error, count) => dropped.push(count), { maxPending: 2 });
      for (const webhookId of ['whk_A', 'whk_B', 'whk_C', 'whk_A'])
        recorder.recordDelivery({ webhookId, outcome: 'accepted', at: '2026-11-27T13:05:00.000Z' });
      seen.failHourly = 1;
      await recorder.flush();
      expect(dropped).toEqual([1]);
      await recorder.flush();
      expect(seen.hourly[0]?.counts).toEqual([hourly('whk_A', H13, 'accepted', 2), hourly('whk_B', H13, 'accepted', 1)]);
    });
  });
});
