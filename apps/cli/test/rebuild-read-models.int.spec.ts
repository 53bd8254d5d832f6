import { PassThrough } from 'node:stream';
import type { Json } from '../../../test/support/ingress-http.client';
import { cli } from './cli-harness';
import { appendOrphanDelivery, createAllRuns, seedStore, type SeededStore } from './cli-fixtures';

/** `rebuild-read-models`: the listings emptied and projected again from the store, while the ingress runs. */
describe('rebuild-read-models', () => {
  let seeded: SeededStore;

  beforeAll(async () => {
    seeded = await seedStore();
    await createAllRuns(seeded);
    await appendOrphanDelivery(seeded.app);
  }, 30_000);

  afterAll(async () => {
    await seeded?.app.close();
  });

  async function listings(): Promise<{ deliveries: string[]; runs: string[]; parked: number }> {
    const deliveries: string[] = [];
    const runs: string[] = [];
    for (const hook of seeded.hooks) {
      deliveries.push(...(await seeded.app.deliveries(hook.routineId)).map((d: Json) => d.delivery_id as string));
      runs.push(...(await seeded.app.runs(hook.routineId)).map((r: Json) => r.run_id as string));
    }
    const parked = (await seeded.app.adminOk('GET', '/admin/parked', undefined, 200)).parked as Json[];
    return { deliveries: deliveries.sort(), runs: runs.sort(), parked: parked.length };
  }

  it('refuses to start without --yes, and changes nothing', async () => {
    const result = await cli(['rebuild-read-models'], seeded.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('confirm with --yes');
  });

  it('projects the same listings again from the store, every row once, with the live projector running', async () => {
    const expected = await (async () => {
      for (let i = 0; i < 200; i += 1) {
        const now = await listings();
        if (now.deliveries.length === seeded.deliveryIds.length && now.runs.length === seeded.deliveryIds.length && now.parked === 1)
          return now;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('the live projector did not catch up');
    })();

    const result = await cli(['rebuild-read-models', '--yes', '--json'], seeded.env);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      events: number;
      rows: { delivery: number; run: number; parked: number };
      checkpoint: string;
      interrupted: boolean;
    };
    expect(summary.interrupted).toBe(false);
    expect(summary.checkpoint).toMatch(/^\d+\/\d+$/);
    // Whichever wrote each batch (this command or the live projector), the listings end up the same.
    expect(await listings()).toEqual(expected);
    // Rows this command wrote (the live projector may have won some batches): never more than exist.
    expect(summary.rows.delivery).toBeLessThanOrEqual(seeded.deliveryIds.length + 1);
    expect(summary.rows.run).toBeLessThanOrEqual(seeded.deliveryIds.length);
    expect(summary.rows.parked).toBeLessThanOrEqual(1);
  });

  it('on a terminal, its progress bar ends at 100 % (the events after the last projected one are read too)', async () => {
    // The newest events are not projected (an account connected: configuration, not a listing).
    await seeded.app.createAccount();
    await seeded.app.createAccount();
    const terminal = Object.assign(new PassThrough(), { isTTY: true, columns: 160 });
    let drawn = '';
    terminal.on('data', (chunk: Buffer) => (drawn += chunk.toString('utf8')));
    const result = await cli(['rebuild-read-models', '--yes'], seeded.env, undefined, terminal);
    expect(result.code).toBe(0);
    const percentages = [...drawn.matchAll(/\] (\d+)%/g)].map((match) => Number(match[1]));
    expect(percentages.length).toBeGreaterThan(0);
    expect(percentages[percentages.length - 1]).toBe(100);
  });
});
