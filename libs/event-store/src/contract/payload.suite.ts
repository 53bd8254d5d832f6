import type { EventStore, EventToAppend, RecordedEvent } from '../event-store.port';
import type { PayloadAttachment, StoredPayload } from '../payload-store.port';
import { collect, newEvent, type ContractContext } from './contract.fixtures';

const DAY_MS = 86_400_000;
/** Scan windows looked at before a test gives up (a shared server may hold many other payloads). */
const MAX_SCAN_CALLS = 10_000;

/** A payload attachment under this test's namespace: key `<ns>-<name>`. */
function attachment(ns: string, name: string, text: string, overrides: Partial<PayloadAttachment> = {}): PayloadAttachment {
  const now = Date.now();
  return { key: `${ns}-${name}`, webhookId: `${ns}-webhook`, format: 'text', text, receivedAt: now, expiresAt: now + DAY_MS, ...overrides };
}

/** Appends a delivery's event with its payload to `delivery-<key>`, as the ingress does; returns the events (for a retry). */
async function put(store: EventStore, payload: PayloadAttachment): Promise<EventToAppend[]> {
  const events = [newEvent('DeliveryAccepted', { key: payload.key })];
  const result = await store.append(`delivery-${payload.key}`, events, 'no_stream', { payload });
  expect(result.kind).toBe('appended');
  return events;
}

function kept(payload: PayloadAttachment): StoredPayload {
  const { format, text, receivedAt, expiresAt } = payload;
  return { state: 'kept', format, text, receivedAt, expiresAt };
}

/** Every match of a whole scan (cursor followed to the end) among this test's keys, and how many calls it took. */
async function scanAll(store: EventStore, ns: string, needle: string, limit: number): Promise<{ matches: string[]; calls: number }> {
  const matches: string[] = [];
  let cursor: string | undefined;
  for (let calls = 1; calls <= MAX_SCAN_CALLS; calls += 1) {
    const page = await store.payloads().scan(needle, { cursor, limit });
    expect(page.scanned).toBeLessThanOrEqual(limit);
    matches.push(...page.matches.filter((key) => key.startsWith(`${ns}-`)));
    if (page.cursor === undefined) return { matches, calls };
    cursor = page.cursor;
  }
  throw new Error(`scan for ${needle} did not end within ${MAX_SCAN_CALLS} windows`);
}

function jsonOf(events: readonly RecordedEvent[]): string {
  return JSON.stringify(events, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

export function payloadContract(context: () => ContractContext): void {
  describe('payloads', () => {
    it('stores a payload with the append that carries it and reads the text back exactly', async () => {
      const { subject, ns } = context();
      const json = attachment(ns, 'json', '{"amount": 12345678901234567890, "note": "caf\\u00e9", "list": [1.50, -0]}', { format: 'json' });
      const text = attachment(ns, 'text', 'Grüße aus Zürich — 東京 🚀 ünïcödé\r\n\ttabs', { webhookId: '' });
      // 23 UTF-8 bytes a repeat: about 256 KiB, multi-byte characters throughout.
      const large = attachment(ns, 'large', 'é🚀 0123456789abcdef'.repeat(11_400));
      for (const payload of [json, text, large]) await put(subject.store, payload);

      const found = await subject.store.payloads().get([json.key, text.key, large.key, `${ns}-never-stored`, json.key]);

      expect(found.get(json.key)).toEqual(kept(json));
      expect(found.get(text.key)).toEqual(kept(text));
      expect(found.get(large.key)).toEqual(kept(large));
      expect(found.has(`${ns}-never-stored`)).toBe(false);
      expect(found.size).toBe(3);
    });

    it('stores one payload for an idempotent retry of the append, and none for a conflicting one', async () => {
      const { subject, ns } = context();
      const { store } = subject;
      const payload = attachment(ns, 'retried', `retried-${ns} body`);
      const events = await put(store, payload);
      const retry = await store.append(`delivery-${payload.key}`, events, 'no_stream', { payload });
      expect(retry.kind).toBe('appended');

      const refused = attachment(ns, 'refused', `refused-${ns} body`);
      const existing = `delivery-${refused.key}`;
      await store.append(existing, [newEvent()], 'no_stream');
      const conflict = await store.append(existing, [newEvent()], 'no_stream', { payload: refused });

      expect(conflict.kind).toBe('conflict');
      const found = await store.payloads().get([payload.key, refused.key]);
      expect(found.get(payload.key)).toEqual(kept(payload));
      expect(found.has(refused.key)).toBe(false);
      expect((await scanAll(store, ns, `retried-${ns}`, 100)).matches).toEqual([payload.key]);
      expect((await scanAll(store, ns, `refused-${ns}`, 100)).matches).toEqual([]);
    });

    it('never shows a payload in readAll or subscribeToAll', async () => {
      const { subject, ns } = context();
      const { store } = subject;
      const marker = `secret-marker-${ns}`;
      const before = await store.headPosition();
      await put(store, attachment(ns, 'hidden', `{"x":"${marker}"}`, { format: 'json' }));
      const last = newEvent('After');
      await store.append(`${ns}-after`, [last], 'no_stream');

      const read = await store.readAll({ after: before, limit: 10_000 });
      const collector = collect(store, { after: before });
      await collector.waitFor(read.length);
      await collector.subscription.stop();

      expect(read.some((event) => event.id === last.id)).toBe(true);
      expect(jsonOf(read)).not.toContain(marker);
      expect(jsonOf(collector.events)).not.toContain(marker);
    });

    it('removes idempotently: removed for good, with its reason, time and erasure, counting only those removed now', async () => {
      const { subject, ns } = context();
      const payloads = subject.store.payloads();
      const [a, b, c] = ['a', 'b', 'c'].map((name) => attachment(ns, name, `body ${name} ${ns}`));
      const eventsOfA = await put(subject.store, a);
      for (const payload of [b, c]) await put(subject.store, payload);
      const erasedAt = Date.now() - 5_000;

      expect(await payloads.remove([a.key, b.key, a.key], { reason: 'erased', erasureId: `era_${ns}`, at: erasedAt })).toBe(2);
      expect(await payloads.remove([a.key, b.key, c.key, `${ns}-unknown`], { reason: 'expired', erasureId: null, at: erasedAt + 1 })).toBe(
        1,
      );
      expect(await payloads.remove([a.key, b.key, c.key], { reason: 'expired', erasureId: null, at: erasedAt + 2 })).toBe(0);
      expect(await payloads.remove([], { reason: 'expired', erasureId: null, at: erasedAt })).toBe(0);
      // Retrying the original append brings nothing back.
      await subject.store.append(`delivery-${a.key}`, eventsOfA, 'no_stream', { payload: a });

      const found = await payloads.get([a.key, b.key, c.key]);
      const erased: StoredPayload = { state: 'removed', reason: 'erased', removedAt: erasedAt, erasureId: `era_${ns}` };
      expect(found.get(a.key)).toEqual(erased);
      expect(found.get(b.key)).toEqual(erased);
      expect(found.get(c.key)).toEqual({ state: 'removed', reason: 'expired', removedAt: erasedAt + 1, erasureId: null });
    });

    it('refuses to remove more than 1000 keys at once', async () => {
      const { subject, ns } = context();
      const keys = Array.from({ length: 1001 }, (_, index) => `${ns}-${index}`);
      await expect(subject.store.payloads().remove(keys, { reason: 'expired', erasureId: null, at: Date.now() })).rejects.toThrow(
        /1000|1,000/,
      );
    });

    it('lists the kept payloads due by a time, oldest expiry first, never removed ones', async () => {
      const { subject, ns } = context();
      const payloads = subject.store.payloads();
      const t0 = Date.now() - 60_000;
      const [late, first, removed, second, future] = [3, 1, 0, 2, 10].map((offset) =>
        attachment(ns, `due-${offset}`, `due ${offset}`, { expiresAt: t0 + offset }),
      );
      for (const payload of [late, first, removed, second, future]) await put(subject.store, payload);
      await payloads.remove([removed.key], { reason: 'expired', erasureId: null, at: Date.now() });

      const due = (await payloads.due(t0 + 3, 10_000)).filter((key) => key.startsWith(`${ns}-`));

      expect(due).toEqual([first.key, second.key, late.key]);
      expect(await payloads.due(t0, 0)).toEqual([]);
    });

    it('scans for a needle ignoring case (ASCII and not), window by window from its cursor, skipping removed payloads', async () => {
      const { subject, ns } = context();
      const payloads = subject.store.payloads();
      const upper = ns.toUpperCase();
      const bodies: Record<string, string> = {
        shouted: `Hello NEEDLE-${upper} world`,
        plain: `{"text":"needle-${ns}"}`,
        accented: `Grüße — Needle-${ns} — ÄRGER-${upper}`,
        umlaut: `viel ärger-${ns}`,
        other: `nothing to see, needle-${ns.slice(0, 4)}`,
        removed: `needle-${ns} ärger-${ns}`,
        escaped: `{"text":"\\u00c4rger-${ns}"}`,
      };
      for (let index = 0; index < 6; index += 1) bodies[`filler-${index}`] = `filler ${index} ${ns}`;
      for (const [name, text] of Object.entries(bodies)) await put(subject.store, attachment(ns, name, text));
      await payloads.remove([`${ns}-removed`], { reason: 'erased', erasureId: `era_${ns}`, at: Date.now() });

      const ascii = await scanAll(subject.store, ns, `needle-${ns}`, 2);
      const nonAscii = await scanAll(subject.store, ns, `ärger-${ns}`, 3);

      expect(ascii.matches.sort()).toEqual([`${ns}-accented`, `${ns}-plain`, `${ns}-shouted`]);
      expect(ascii.calls).toBeGreaterThanOrEqual(6);
      // A JSON body is matched on its text as received: "\u00c4rger" is not "Ärger".
      expect(nonAscii.matches.sort()).toEqual([`${ns}-accented`, `${ns}-umlaut`]);
      expect(nonAscii.calls).toBeGreaterThanOrEqual(4);
    });

    it('reclaims and still answers removed afterwards', async () => {
      const { subject, ns } = context();
      const payloads = subject.store.payloads();
      const now = Date.now();
      const old = attachment(ns, 'old', `old ${ns}`, { receivedAt: now - 3 * DAY_MS, expiresAt: now - 2 * DAY_MS });
      const fresh = attachment(ns, 'fresh', `fresh ${ns}`);
      const keptOne = attachment(ns, 'kept', `kept ${ns}`);
      for (const payload of [old, fresh, keptOne]) await put(subject.store, payload);
      await payloads.remove([old.key, fresh.key], { reason: 'expired', erasureId: null, at: now });

      const report = await payloads.reclaim(now);
      const again = await payloads.reclaim(now);

      expect(typeof report.complete).toBe('boolean');
      expect(report.released).toBeGreaterThanOrEqual(0);
      expect(again.released).toBeGreaterThanOrEqual(0);
      const found = await payloads.get([old.key, fresh.key, keptOne.key]);
      expect(found.get(old.key)).toEqual({ state: 'removed', reason: 'expired', removedAt: now, erasureId: null });
      expect(found.get(fresh.key)).toEqual({ state: 'removed', reason: 'expired', removedAt: now, erasureId: null });
      expect(found.get(keptOne.key)).toEqual(kept(keptOne));
    });
  });
}
