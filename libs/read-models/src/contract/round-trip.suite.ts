/// <reference types="jest" />
import {
  at,
  attemptRow,
  delivery,
  deliveryRow,
  everything,
  listed,
  parked,
  parkedRow,
  project,
  run,
  runRow,
  type Context,
} from './contract.fixtures';

/** Strings that break naive quoting, LIKE patterns, escaping, encodings or column sizes. */
function hostileStrings(ns: string): string[] {
  return [
    `${ns}'; DROP TABLE rm_deliveries; --`,
    `${ns} "double" and 'single' quotes`,
    `${ns} 100%_done \\ back\\\\slash \\' \\" \\n`,
    `${ns} ünïcödé ✓ 日本語 Ωμέγα עברית`,
    `${ns} emoji 🚀👩‍👩‍👧‍👦🏳️‍🌈`,
    `${ns} tab\tnewline\ncarriage\r`,
    `${ns} ${'x'.repeat(10_240)} end 🎉`,
    `${ns} {"json":[1,2,{"a":null}]} $1 ? @name :name`,
  ];
}

export function roundTripContract(context: Context): void {
  describe('values', () => {
    it('returns hostile strings (quotes, %, _, backslashes, unicode, emoji, 10 KB) exactly as written, in every column', async () => {
      const { store, ns, base } = context();
      const values = hostileStrings(ns);
      const name = `${ns}:${values[1]}`;
      for (const [i, s] of values.entries()) {
        const routine = `${s} routine`;
        const d = deliveryRow(`${s} delivery`, routine, {
          webhook_id: `${s} webhook`,
          run_id: `${s} run`,
          received_at: '2024-05-01T12:00:00.123Z',
          trigger_account: { account_id: `${s} account`, email: `${s}@example.com` },
          content_type: `text/plain; charset="${s}"`,
          idempotency_key: `${s} key`,
        });
        const r = runRow(`${s} run`, routine, {
          webhook_id: `${s} webhook`,
          delivery_id: `${s} delivery`,
          status: `${s} status`,
          created_at: '2024-05-01T12:00:00.999Z',
          trigger_account: d.trigger_account,
        });
        const p = parkedRow(`${s} event`, routine, {
          source_stream: `${s} stream`,
          source_type: `${s} type`,
          delivery_id: `${s} delivery`,
          error: `${s} error`,
          parked_at: '1999-12-31T23:59:59.000Z',
        });
        const position = at(base + BigInt(i));
        await project(store, name, [delivery(d, position), run(r, position), parked(p, position)]);
        await store.recordReplays([d.delivery_id]);
        const attempt = attemptRow(`${s} webhook`, i, {
          reason: `${s} reason`,
          at: '2024-05-01T12:00:00.000Z',
          sourceAddress: `${s} address`,
        });
        await store.recordAttempts([attempt], 5);

        expect(await everything((page) => store.deliveries(routine, page))).toEqual([listed(d, 1)]);
        expect(await everything((page) => store.runs(routine, page))).toEqual([r]);
        expect(await everything((page) => store.parked(routine, page))).toEqual([p]);
        expect(await everything((page) => store.attempts(`${s} webhook`, page))).toEqual([attempt]);
      }
      expect(await store.loadCheckpoint(name)).toEqual(at(base + BigInt(values.length - 1)));
      // Pattern characters are data, never wildcards.
      expect(await everything((page) => store.deliveries(`${ns}%`, page))).toEqual([]);
      expect(await everything((page) => store.attempts(`${ns}_%`, page))).toEqual([]);
    });

    it('keeps null idempotency keys and parked rows without a delivery or routine as null', async () => {
      const { store, ns, base } = context();
      const d = deliveryRow(`${ns}-d`, `${ns}-r`, { idempotency_key: null });
      const p = parkedRow(`${ns}-p`, null, { delivery_id: null });
      await project(store, `${ns}:projector`, [delivery(d, at(base + 1n)), parked(p, at(base + 2n))]);

      expect(await everything((page) => store.deliveries(`${ns}-r`, page))).toEqual([listed(d)]);
      expect(
        (await everything((page) => store.parked(undefined, page))).filter((row) => row.source_event_id === p.source_event_id),
      ).toEqual([p]);
    });
  });
}
