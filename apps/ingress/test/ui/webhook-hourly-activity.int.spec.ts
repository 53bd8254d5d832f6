/**
 * GET /admin/routines/{id}/webhook/activity/hourly through the real ingress (SQLite read model,
 * activity written on its own thread): deliveries accepted, filtered and accepted despite a filter
 * error, and attempts refused by the schema and by a wrong secret, counted in the hour they happened;
 * an unknown webhook id is counted for nobody.
 */
import { UiTestServer } from '../../../../test/support/ui-test-server';

const WRONG_SECRET = `whsec_${'A'.repeat(43)}`;
const HOUR_MS = 3_600_000;

interface Hour {
  readonly hour: string;
  readonly accepted: number;
  readonly filtered: number;
  readonly filter_errors: number;
  readonly refused: Record<string, number>;
}

const hourOf = (ms: number): string => new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString();

/** Sums the 24 hours: the test may straddle an hour boundary, so totals are what it checks. */
function totals(hours: readonly Hour[]): { accepted: number; filtered: number; filter_errors: number; refused: Record<string, number> } {
  const sum = { accepted: 0, filtered: 0, filter_errors: 0, refused: {} as Record<string, number> };
  for (const hour of hours) {
    sum.accepted += hour.accepted;
    sum.filtered += hour.filtered;
    sum.filter_errors += hour.filter_errors;
    for (const [reason, n] of Object.entries(hour.refused)) sum.refused[reason] = (sum.refused[reason] ?? 0) + n;
  }
  return sum;
}

describe('GET /admin/routines/{id}/webhook/activity/hourly', () => {
  let server: UiTestServer;
  let account: { id: string; email: string };

  beforeAll(async () => {
    server = await UiTestServer.start();
    account = await server.createAccount('hourly@example.com');
  });

  afterAll(async () => {
    await server.close();
  });

  async function hourly(routineId: string): Promise<Hour[]> {
    const body = await server.adminOk('GET', `/admin/routines/${routineId}/webhook/activity/hourly`, undefined, 200);
    expect(Object.keys(body)).toEqual(['hours']);
    return body.hours as Hour[];
  }

  it('answers 24 zero hours, oldest first, ending with the current hour, for a routine without a webhook', async () => {
    const routine = await server.createRoutine({ name: 'No webhook yet', account_scope: [account.id] });
    const before = Date.now();
    const hours = await hourly(routine.id);
    const after = Date.now();

    expect(hours).toHaveLength(24);
    expect([hourOf(before), hourOf(after)]).toContain(hours[23]?.hour);
    hours.forEach((hour, n) => {
      if (n > 0) expect(Date.parse(hour.hour) - Date.parse(hours[n - 1]?.hour ?? '')).toBe(HOUR_MS);
      expect(hour).toEqual({ hour: hour.hour, accepted: 0, filtered: 0, filter_errors: 0, refused: {} });
    });
  });

  it('answers 404 routine_not_found for an unknown routine, as the other activity endpoints', async () => {
    const answer = await server.admin('GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook/activity/hourly');
    expect(answer.status).toBe(404);
    expect(answer.json.code).toBe('routine_not_found');
  });

  it('counts accepted, filtered, filter errors and refusals by reason in their hour; unknown ids for nobody', async () => {
    const routine = await server.createRoutine({ name: 'Counted', account_scope: [account.id] });
    const webhook = await server.adminOk(
      'POST',
      `/admin/routines/${routine.id}/webhook/enable`,
      { default_account: account.email, account_override_allowed: false },
      200,
    );
    await server.adminOk(
      'PATCH',
      `/admin/routines/${routine.id}/webhook`,
      { filter: 'body.kind == "go"', payload_schema: { type: 'object' } },
      200,
    );
    const other = await server.createRoutine({ name: 'Quiet neighbour', account_scope: [account.id] });
    await server.adminOk(
      'POST',
      `/admin/routines/${other.id}/webhook/enable`,
      { default_account: account.email, account_override_allowed: false },
      200,
    );
    const send = (data: unknown, secret: string = webhook.secret, id: string = webhook.webhook_id): Promise<number> =>
      server.deliver(id, secret, { data }).then((answer) => answer.status);

    const before = Date.now();
    const statuses = [
      await send({ kind: 'go' }),
      await send({ kind: 'go' }),
      await send({ kind: 'go' }),
      await send({ kind: 'stop' }),
      await send({ kind: 'stop' }),
      await send({ no_kind: true }),
      await send([1, 2]),
      await send({ kind: 'go' }, WRONG_SECRET),
      await send({ kind: 'go' }, WRONG_SECRET),
      await send({ kind: 'go' }, webhook.secret, 'whk_AAAAAAAAAAAAAAAAAAAAAA'),
    ];
    expect(statuses).toEqual([202, 202, 202, 200, 200, 202, 400, 404, 404, 404]);

    const hours = await hourly(routine.id);
    const after = Date.now();
    expect(totals(hours)).toEqual({
      accepted: 3,
      filtered: 2,
      filter_errors: 1,
      refused: { payload_schema_mismatch: 1, wrong_secret: 2 },
    });
    // Everything happened in the last hour or two (the current one, or the one before it, if the test crossed an hour).
    const busy = hours.filter((hour) => hour.accepted + hour.filtered + hour.filter_errors + Object.keys(hour.refused).length > 0);
    for (const hour of busy) expect([hourOf(before), hourOf(after)]).toContain(hour.hour);
    expect(hours).toHaveLength(24);

    // The filter error is listed among the attempts too, so that the owner sees it happened.
    const { attempts } = await server.adminOk('GET', `/admin/routines/${routine.id}/webhook/attempts`, undefined, 200);
    expect(attempts.map((attempt: { reason: string }) => attempt.reason).sort()).toEqual(
      ['filter_error', 'payload_schema_mismatch', 'wrong_secret', 'wrong_secret'].sort(),
    );
    // The neighbour had no traffic, and the unknown id's attempt is nobody's.
    expect(totals(await hourly(other.id))).toEqual({ accepted: 0, filtered: 0, filter_errors: 0, refused: {} });
  });
});
