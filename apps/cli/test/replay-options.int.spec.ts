/**
 * Option validation (exit code 2, nothing opened) and the dry run (nothing sent, nothing
 * created), then a real replay as a recovery tool: runs that do not exist yet are created.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, summaryOf } from './cli-harness';
import { seedStore, runsPerDelivery, type SeededStore } from './cli-fixtures';

jest.setTimeout(60_000);

describe('replay options', () => {
  // A directory without a store: a command that got past validation would fail with exit 1.
  const empty = mkdtempSync(join(tmpdir(), 'wts-cli-empty-'));
  const env = { DATA_DIR: empty };
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it.each([
    [
      ['--category', 'deliveries', '--to', 'dispatcher'],
      'unknown --category "deliveries" (known: delivery, webhook, run, routine, parked, account-catalog)',
    ],
    [['--from-position', '9', '--to-position', '3', '--to', 'dispatcher'], '--from-position 9/9 is after --to-position 3/3'],
    [['--from-position', 'abc', '--to', 'dispatcher'], '--from-position must be a commit position'],
    [['--after-position', '4/x', '--to', 'dispatcher'], '--after-position must be a commit position'],
    [['--after-position', '4', '--from-position', '5', '--to', 'dispatcher'], '--after-position and --from-position exclude each other'],
    [['--after-position', '3/3', '--to-position', '3/3', '--to', 'dispatcher'], '--after-position 3/3 is not before --to-position 3/3'],
    [['--since', '2025-02-30', '--to', 'dispatcher'], '--since must be an ISO 8601 date'],
    [['--until', 'yesterday', '--to', 'dispatcher'], '--until must be an ISO 8601 date'],
    [['--since', '2025-01-01T10:00', '--to', 'dispatcher'], '--since must be an ISO 8601 date or date-time with a zone'],
    [
      ['--since', '2025-01-02', '--until', '2025-01-01T00:00:00Z', '--to', 'dispatcher'],
      '--since 2025-01-02T00:00:00.000Z must be before --until',
    ],
    [['--category', 'delivery'], '--to is required: kafka or dispatcher'],
    [['--to', 'stdout'], '--to must be kafka or dispatcher, got "stdout"'],
    [['--to', 'dispatcher', '--batch-size', '0'], '--batch-size must be an integer from 1 to 10000'],
    [['--to', 'dispatcher', '--topic-prefix', 'x.'], '--topic-prefix only applies to --to kafka'],
    [['--to', 'kafka'], '--to kafka needs KAFKA_BROKERS'],
  ])('replay %j → exit 2: %s', async (args, message) => {
    const result = await cli(['replay', ...args], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('lists every problem at once', async () => {
    const result = await cli(['replay', '--to', 'nowhere', '--category', 'nope', '--since', 'soon'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/invalid options:\n {2}- --to must be .*\n {2}- unknown --category "nope".*\n {2}- --since must be/);
  });

  it('an unknown option, a bad environment value, or no command: exit 2', async () => {
    const unknown = await cli(['replay', '--to', 'dispatcher', '--frm-position', '3'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--frm-position'");
    const badEnv = await cli(['replay', '--to', 'dispatcher'], { ...env, KAFKA_BROKERS: 'not a broker list' });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('invalid configuration: KAFKA_BROKERS must be host:port');
    expect((await cli([], env)).code).toBe(2);
    expect((await cli(['--help'], env)).code).toBe(0);
  });

  it('valid options on a directory without a store: exit 1, and no store is created', async () => {
    const result = await cli(['replay', '--to', 'dispatcher'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no event store at ${join(empty, 'events.sqlite')}`);
    expect(existsSync(join(empty, 'events.sqlite'))).toBe(false);
  });
});

describe('replay --dry-run, then a real replay', () => {
  let seeded: SeededStore;

  // No dispatcher runs here: the deliveries have no run yet.
  beforeAll(async () => {
    seeded = await seedStore();
  });
  afterAll(async () => {
    await seeded?.app.close();
  });

  it('the dry run lists counts per type and the first/last position, and sends nothing', async () => {
    const before = await seeded.app.allEvents();
    const deliveries = before.filter((event) => event.type === 'DeliveryAccepted');
    const result = await cli(['replay', '--to', 'dispatcher', '--dry-run'], seeded.env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `dry run: would replay ${deliveries.length} of ${before.length} selected events to dispatcher (positions 1/1 … ${before.length}/${before.length}); nothing was sent`,
    );
    expect(result.stdout).toMatch(new RegExp(`^ {2}DeliveryAccepted +${deliveries.length} +${deliveries.length}$`, 'm'));
    expect(result.stdout).toMatch(/^ {2}WebhookEnabled +2 +0$/m);
    expect(result.stdout).toContain(
      `summary: replayed=0 created=0 already_created=0 parked=0 held=0 skipped=${before.length - deliveries.length} would_replay=${deliveries.length}`,
    );
    expect(await seeded.app.allEvents()).toHaveLength(before.length);
    expect(await seeded.app.createdRuns()).toEqual([]);
  });

  it('the dry run applies the time window on the created time', async () => {
    const future = summaryOf(await cli(['replay', '--to', 'dispatcher', '--dry-run', '--json', '--since', '2999-01-01'], seeded.env));
    expect(future).toMatchObject({ selected: 0, would_replay: 0, first_position: null });
    const past = summaryOf(
      await cli(
        [
          'replay',
          '--to',
          'dispatcher',
          '--dry-run',
          '--json',
          '--category',
          'delivery',
          '--since',
          '2000-01-01',
          '--until',
          '2999-01-01T00:00:00+02:00',
        ],
        seeded.env,
      ),
    );
    expect(past).toMatchObject({ selected: seeded.deliveryIds.length, would_replay: seeded.deliveryIds.length });
  });

  it('a real replay creates the missing runs — once', async () => {
    const first = summaryOf(await cli(['replay', '--category', 'delivery', '--to', 'dispatcher', '--json'], seeded.env));
    expect(first).toMatchObject({ replayed: seeded.deliveryIds.length, created: seeded.deliveryIds.length, already_created: 0 });
    const again = summaryOf(await cli(['replay', '--category', 'delivery', '--to', 'dispatcher', '--json'], seeded.env));
    expect(again).toMatchObject({ replayed: seeded.deliveryIds.length, created: 0, already_created: seeded.deliveryIds.length });
    const perDelivery = await runsPerDelivery(seeded.app);
    expect([...perDelivery.values()]).toEqual(seeded.deliveryIds.map(() => 1));
  });

  it('stops after the batch in flight on SIGINT and says where to resume', async () => {
    // A signal that turns aborted on its third look: after two batches of two events.
    let looks = 0;
    const sigint = {
      get aborted() {
        looks += 1;
        return looks > 2;
      },
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    } as unknown as AbortSignal;
    const result = await cli(['replay', '--to', 'dispatcher', '--batch-size', '2'], seeded.env, sigint);
    expect(result.code).toBe(130);
    expect(result.stdout).toContain('interrupted: replayed 0 of 4 selected events to dispatcher (positions 1/1 … 4/4)');
    // The last position done, as an exclusive bound: exact on EventStoreDB too, where the events of
    // one multi-event append share a commit position (commit+1/prepare+1 would skip the rest of it).
    expect(result.stdout).toContain('resume with: --after-position 4/4');

    const resumed = summaryOf(await cli(['replay', '--to', 'dispatcher', '--after-position', '4/4', '--json'], seeded.env));
    const all = await seeded.app.allEvents();
    expect(resumed).toMatchObject({ interrupted: false, selected: all.length - 4, first_position: '5/5' });
    // --from-position stays inclusive.
    const inclusive = summaryOf(await cli(['replay', '--to', 'dispatcher', '--dry-run', '--from-position', '4/4', '--json'], seeded.env));
    expect(inclusive).toMatchObject({ selected: all.length - 3, first_position: '4/4' });
  });
});
