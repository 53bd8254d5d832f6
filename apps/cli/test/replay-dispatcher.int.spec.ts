/**
 * Operator replays to the dispatcher never duplicate a run (guarantee 2): a full replay of the
 * delivery category over a store whose runs exist reports every delivery as already created, and
 * the store keeps exactly one RunCreated per delivery — also after the dispatcher's own checkpoint
 * is removed and it re-reads everything from the start.
 */
import { STORE_DISPATCH_CHECKPOINT } from '@wts/application';
import type { EventMetadata } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';
import Database from 'better-sqlite3';
import { eventually } from '@wts/testing';
import { cli, summaryOf } from './cli-harness';
import {
  appendOrphanDelivery,
  createAllRuns,
  runsPerDelivery,
  seedStore,
  startCountingWorker,
  type SeededStore,
  eventsBesidesOperatorActions,
} from './cli-fixtures';

jest.setTimeout(60_000);

describe('replay --to dispatcher', () => {
  let seeded: SeededStore;
  let orphan: string;

  beforeAll(async () => {
    seeded = await seedStore();
    await createAllRuns(seeded);
    orphan = await appendOrphanDelivery(seeded.app);
    await eventually(
      async () => (await seeded.app.allEvents()).some((event) => event.type === 'DispatchParked'),
      10_000,
      'the orphan parked',
    );
  });

  afterAll(async () => {
    await seeded?.app.close();
  });

  async function expectOneRunPerDelivery(): Promise<void> {
    const perDelivery = await runsPerDelivery(seeded.app);
    expect([...perDelivery.keys()].sort()).toEqual([...seeded.deliveryIds].sort());
    for (const deliveryId of seeded.deliveryIds) expect(perDelivery.get(deliveryId)).toBe(1);
    expect(perDelivery.has(orphan)).toBe(false);
  }

  it('a full replay of the delivery category creates no run: all already_created, the orphan parked again', async () => {
    const before = await eventsBesidesOperatorActions(seeded.app);
    const result = await cli(['replay', '--category', 'delivery', '--to', 'dispatcher', '--json'], seeded.env);
    const summary = summaryOf(result);
    expect(summary).toMatchObject({
      target: 'dispatcher',
      dry_run: false,
      interrupted: false,
      selected: seeded.deliveryIds.length + 1,
      replayed: seeded.deliveryIds.length + 1,
      created: 0,
      already_created: seeded.deliveryIds.length,
      parked: 1,
      skipped: 0,
    });
    expect(summary.by_type).toEqual({
      DeliveryAccepted: { selected: seeded.deliveryIds.length + 1, replay: seeded.deliveryIds.length + 1 },
    });
    expect(await eventsBesidesOperatorActions(seeded.app)).toBe(before);
    await expectOneRunPerDelivery();
  });

  it('the human summary says the same, and every other category is skipped, not sent', async () => {
    const result = await cli(['replay', '--to', 'dispatcher'], seeded.env);
    expect(result.code).toBe(0);
    const n = seeded.deliveryIds.length;
    expect(result.stdout).toContain(`summary: replayed=${n + 1} created=0 already_created=${n} parked=1 held=0 skipped=`);
    const skipped = Number(/skipped=(\d+)/.exec(result.stdout)?.[1]);
    const all = (await seeded.app.allEvents()).length;
    expect(skipped).toBe(all - (n + 1));
    expect(result.stdout).toMatch(/^ {2}DeliveryAccepted +\d+ +\d+$/m);
    await expectOneRunPerDelivery();
  });

  it('after the dispatcher checkpoint is removed, the dispatcher and a replay re-read everything and create nothing', async () => {
    const before = await eventsBesidesOperatorActions(seeded.app);
    const db = new Database(seeded.app.storeFile);
    try {
      const removed = db.prepare('DELETE FROM checkpoints WHERE name = ?').run(STORE_DISPATCH_CHECKPOINT);
      expect(removed.changes).toBe(1);
    } finally {
      db.close();
    }
    const { worker, outcomes } = await startCountingWorker(seeded.app);
    try {
      await eventually(async () => outcomes.length >= seeded.deliveryIds.length + 1, 10_000, 'the worker re-dispatching from the start');
      expect(outcomes.filter((outcome) => outcome.kind === 'created')).toEqual([]);
      expect(outcomes.filter((outcome) => outcome.kind === 'already_created')).toHaveLength(seeded.deliveryIds.length);
      expect(outcomes.filter((outcome) => outcome.kind === 'parked')).toHaveLength(1);
    } finally {
      await worker.stop();
    }
    const summary = summaryOf(await cli(['replay', '--category', 'delivery', '--to', 'dispatcher', '--json'], seeded.env));
    expect(summary).toMatchObject({ created: 0, already_created: seeded.deliveryIds.length, parked: 1 });
    expect(await eventsBesidesOperatorActions(seeded.app)).toBe(before);
    await expectOneRunPerDelivery();
  });

  it('a replay is on the audit trail: the operator (--operator, else WTS_OPERATOR, else the login) and what was asked; a dry run is not', async () => {
    const records = async (): Promise<RecordedEvent[]> =>
      (await seeded.app.allEvents()).filter((event) => event.type === 'OperatorActionRecorded');
    const before = (await records()).length;
    await cli(['replay', '--category', 'delivery', '--to', 'dispatcher', '--dry-run'], seeded.env);
    expect(await records()).toHaveLength(before);
    const result = await cli(['replay', '--category', 'delivery', '--to', 'dispatcher', '--operator', 'ada@example.com'], seeded.env);
    expect(result.code).toBe(0);
    const recorded = (await records()).slice(before);
    expect(recorded).toHaveLength(1);
    expect(recorded[0].data).toMatchObject({ action: 'replay', detail: { to: 'dispatcher', categories: 'delivery-', streams: null } });
    expect((recorded[0].metadata as EventMetadata).actor).toEqual({
      kind: 'bootstrap',
      subject: expect.stringMatching(/^cli:.+@.+$/),
      display: 'ada@example.com',
      displayVerified: true,
    });
    await cli(['replay', '--category', 'delivery', '--to', 'dispatcher'], { ...seeded.env, WTS_OPERATOR: 'grace@example.com' });
    const [second] = (await records()).slice(before + 1);
    expect((second.metadata as EventMetadata).actor?.display).toBe('grace@example.com');
    const refused = await cli(['replay', '--to', 'dispatcher', '--operator', 'bad\u0007name'], seeded.env);
    expect(refused.code).toBe(2);
    expect(await records()).toHaveLength(before + 2);
    await expectOneRunPerDelivery();
  });

  it('replays one stream, or a position window, exactly', async () => {
    const deliveries = await seeded.app.acceptedDeliveries();
    const second = deliveries[1];
    const one = summaryOf(await cli(['replay', '--stream', second.streamId, '--to', 'dispatcher', '--json'], seeded.env));
    expect(one).toMatchObject({
      selected: 1,
      replayed: 1,
      already_created: 1,
      first_position: `${second.position.commit}/${second.position.prepare}`,
    });

    const [from, to] = [deliveries[1].position.commit, deliveries[3].position.commit];
    const window = summaryOf(
      await cli(
        [
          'replay',
          '--category',
          'delivery',
          '--from-position',
          `${from}`,
          '--to-position',
          `${to}`,
          '--to',
          'dispatcher',
          '--json',
          '--batch-size',
          '1',
        ],
        seeded.env,
      ),
    );
    expect(window).toMatchObject({
      selected: 3,
      replayed: 3,
      already_created: 3,
      first_position: `${from}/${from}`,
      last_position: `${to}/${to}`,
    });
  });
});
