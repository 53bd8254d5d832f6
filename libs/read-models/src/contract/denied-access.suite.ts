/// <reference types="jest" />
import type { AuditActor, AuditRow, DeniedAccessBounds, ReadModelStore } from '../read-model.port';
import { at, audit, auditRow, deniedRow, everything, project, type Context } from './contract.fixtures';

/** Every denied entry of the database (shared by the suite's tests), newest first. */
async function deniedEntries(store: ReadModelStore): Promise<AuditRow[]> {
  return (await everything((page) => store.audit({}, page))).filter((row) => row.outcome === 'denied');
}

/** The entry ids of `rows` written under `ns`, without it. */
function idsOf(rows: readonly AuditRow[], ns: string): string[] {
  return rows.filter((row) => row.entryId.startsWith(`${ns}-`)).map((row) => row.entryId.slice(ns.length + 1));
}

/** An instant `n` seconds after a base later than any other test's entries: a flood's entries are the newest. */
function instant(year: number, n: number): string {
  return new Date(Date.UTC(year, 0, 1) + n * 1000).toISOString();
}

/** An IPv6 address of the documentation prefix, of this test only (the database is shared by the suite's tests). */
function address(ns: string, host: string): string {
  return `2001:db8:${ns.slice(0, 4)}:${ns.slice(4, 8)}::${host}`;
}

/**
 * `count` refusals of nobody (`detail`) under `ns`: ids `<tag><n>` (n zero-padded to the count's
 * digits), one a second from `instant(year, from)`, each from `source(n)`.
 */
function anonymousFlood(
  ns: string,
  tag: string,
  count: number,
  { year, from, detail, source }: { year: number; from: number; detail: string; source: (n: number) => string },
): AuditRow[] {
  const digits = String(count - 1).length;
  return Array.from({ length: count }, (_, n) =>
    deniedRow(`${ns}-${tag}${String(n).padStart(digits, '0')}`, {
      at: instant(year, from + n),
      actor: null,
      detail,
      sourceAddress: source(n),
    }),
  );
}

/** Writes `rows` as the ingress does, `size` at a time. */
async function recordInBatches(store: ReadModelStore, rows: readonly AuditRow[], size: number, bounds: DeniedAccessBounds): Promise<void> {
  for (let batch = 0; batch < rows.length; batch += size) await store.recordDeniedAccess(rows.slice(batch, batch + size), bounds);
}

/**
 * The retention of denied admin attempts (DeniedAccessBounds): kept per source address and per
 * class (the credential named someone, or nobody), so that a flood of refusals cannot erase the
 * record of someone else — in particular of a revoked key being tried — and stays bounded itself.
 */
export function deniedAccessContract(context: Context): void {
  describe('denied admin attempts: retention', () => {
    const revokedKey = (ns: string): AuditActor => ({
      kind: 'api_key',
      subject: `${ns}-key_revoked`,
      display: `old CI key ${ns}`,
      displayVerified: true,
    });

    it('entries from address A survive a flood of N > perSource refusals from address B; the flood keeps only its newest perSource', async () => {
      const { store, ns } = context();
      const bounds: DeniedAccessBounds = { perSource: 20, overall: 100_000 };
      const [a, b] = [address(ns, 'a'), address(ns, 'b')];
      const fromA = [
        deniedRow(`${ns}-a1`, { at: instant(2990, 1), actor: revokedKey(ns), detail: 'api_key_revoked', sourceAddress: a }),
        deniedRow(`${ns}-a2`, { at: instant(2990, 2), actor: null, detail: 'no_credential', sourceAddress: a }),
      ];
      await store.recordDeniedAccess(fromA, bounds);
      // 500 unauthenticated refusals from B, in batches as the ingress writes them.
      const flood = anonymousFlood(ns, 'b', 500, { year: 2990, from: 10, detail: 'no_credential', source: () => b });
      await recordInBatches(store, flood, 50, bounds);

      const kept = await deniedEntries(store);
      expect(kept.filter((row) => row.sourceAddress === a)).toEqual([...fromA].reverse());
      expect(kept.filter((row) => row.sourceAddress === b)).toEqual(flood.slice(-20).reverse());
    });

    it('a source keeps its classes apart: an anonymous flood from the address a revoked key was tried from keeps that attempt', async () => {
      const { store, ns } = context();
      const bounds: DeniedAccessBounds = { perSource: 5, overall: 100_000 };
      const shared = address(ns, '1');
      const tried = deniedRow(`${ns}-key`, {
        at: instant(2991, 0),
        actor: revokedKey(ns),
        detail: 'api_key_revoked',
        sourceAddress: shared,
      });
      await store.recordDeniedAccess([tried], bounds);
      const flood = anonymousFlood(ns, 'f', 60, { year: 2991, from: 1, detail: 'unknown_credential', source: () => shared });
      await store.recordDeniedAccess(flood, bounds);

      expect((await deniedEntries(store)).filter((row) => row.sourceAddress === shared)).toEqual([...flood.slice(-5).reverse(), tried]);
    });

    it('an anonymous flood from many addresses is held to `overall` and never drops an entry naming someone', async () => {
      const { store, ns } = context();
      const bounds: DeniedAccessBounds = { perSource: 100, overall: 30 };
      const tried = deniedRow(`${ns}-key`, {
        at: instant(2992, 0),
        actor: revokedKey(ns),
        detail: 'api_key_expired',
        sourceAddress: address(ns, 'a'),
      });
      const anonymous = deniedRow(`${ns}-anon`, {
        at: instant(2992, 1),
        actor: null,
        detail: 'no_credential',
        sourceAddress: address(ns, 'a'),
      });
      await store.recordDeniedAccess([tried, anonymous], bounds);
      const flood = anonymousFlood(ns, 'm', 200, {
        year: 2992,
        from: 2,
        detail: 'no_credential',
        source: (n) => address(ns, n.toString(16)),
      });
      await recordInBatches(store, flood, 40, bounds);

      const kept = await deniedEntries(store);
      // The anonymous class, of every test, is down to the flood's newest 30; the revoked key's attempt stays.
      expect(kept.filter((row) => row.actor === null)).toEqual(flood.slice(-30).reverse());
      expect(idsOf(kept, ns).filter((id) => !id.startsWith('m'))).toEqual(['key']);
    });

    it('keeps the newest `overall` of a class (one batch longer than it, an older entry at once); projected entries are never trimmed', async () => {
      const { store, ns } = context();
      const actor = { kind: 'oidc', subject: `${ns}-denier`, display: `Denier ${ns}`, displayVerified: true } as const;
      // Newer than any other test's named entries (the database is shared): the class's newest are these.
      const denied = (n: number): AuditRow => deniedRow(`${ns}-d${n}`, { at: instant(3001, n), actor });
      const projected = auditRow(`${ns}-p1`, { at: '2000-01-01T00:00:00.000Z', actor });
      const listed = async (): Promise<AuditRow[]> => everything((page) => store.audit({ actor: actor.subject }, page));
      await project(store, `${ns}:projector`, [audit(projected, at(1))]);
      await store.recordDeniedAccess([denied(1), denied(2), denied(3), denied(4)], { perSource: 100, overall: 100 });
      expect(await listed()).toEqual([denied(4), denied(3), denied(2), denied(1), projected]);

      await store.recordDeniedAccess([denied(5), denied(6)], { perSource: 100, overall: 3 });
      expect(await listed()).toEqual([denied(6), denied(5), denied(4), projected]);
      // Entries naming others (older) go too: the bound is the class's.
      expect((await deniedEntries(store)).filter((row) => row.actor !== null)).toEqual([denied(6), denied(5), denied(4)]);
      await store.recordDeniedAccess([deniedRow(`${ns}-old`, { at: '2001-01-01T00:00:00.000Z', actor })], { perSource: 100, overall: 3 });
      expect(await listed()).toEqual([denied(6), denied(5), denied(4), projected]);

      await store.recordDeniedAccess([denied(7)], { perSource: 0, overall: 0 });
      expect(await listed()).toEqual([projected]);
    });

    it('refuses, writing nothing, an entry that is not denied or has no source address, and bounds that are not counts', async () => {
      const { store, ns } = context();
      const source = address(ns, 'c');
      const denied = deniedRow(`${ns}-d1`, { at: instant(2993, 0), sourceAddress: source });
      const loose = { perSource: 10, overall: 10 };
      for (const bad of [-1, 1.5, Number.NaN, undefined]) {
        await expect(store.recordDeniedAccess([denied], { perSource: bad as number, overall: 10 })).rejects.toBeInstanceOf(RangeError);
        await expect(store.recordDeniedAccess([denied], { perSource: 10, overall: bad as number })).rejects.toBeInstanceOf(RangeError);
      }
      await expect(store.recordDeniedAccess([denied, auditRow(`${ns}-p2`)], loose)).rejects.toBeInstanceOf(RangeError);
      for (const sourceAddress of [null, '']) {
        await expect(store.recordDeniedAccess([denied, deniedRow(`${ns}-d2`, { sourceAddress })], loose)).rejects.toBeInstanceOf(
          RangeError,
        );
      }
      await store.recordDeniedAccess([], { perSource: 0, overall: 0 });
      expect(idsOf(await deniedEntries(store), ns)).toEqual([]);

      await store.recordDeniedAccess([denied], loose);
      expect((await deniedEntries(store)).filter((row) => row.sourceAddress === source)).toEqual([denied]);
    });
  });
}
