import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Streams } from '@wts/contracts';
import type { PayloadStore } from '@wts/event-store';
import { DispatchDeliveryUseCase } from '../run/dispatch-delivery.usecase';
import { ParkDispatchUseCase } from '../run/park-dispatch.usecase';
import { HELD, OTHER, PAYLOAD_EXPIRES_AT, ReleaseDrainFixture, heldEvent, releasedEvent } from '../run/testing/release-drain.fixtures';
import { cryptoRandom } from '../shared/system-runtime.adapter';
import type { Clock } from '../shared/runtime.port';
import { PayloadRemover } from './payload.remover';
import { PayloadReader } from './payload.reader';
import { PayloadRetentionSweeper } from './payload-retention.worker';

const LATER = '2026-03-01T00:00:00.000Z';
const marker = (n: number): string => `MARKER-${n.toString(36).padStart(6, '0')}-${'q'.repeat(40)}`;

/** Whether any file of the store's directory holds `text`, byte for byte. */
function onDisk(dir: string, texts: readonly string[]): string[] {
  const files = readdirSync(dir).map((name) => readFileSync(join(dir, name)));
  return texts.filter((text) => files.some((bytes) => bytes.includes(Buffer.from(text))));
}

describe('PayloadRetentionSweeper (embedded store)', () => {
  let fixture: ReleaseDrainFixture;
  let now: Date;
  const clock: Clock = { now: () => now };

  beforeEach(async () => {
    fixture = new ReleaseDrainFixture();
    await fixture.setUp();
    now = new Date('2026-01-02T00:00:00.000Z');
  });

  afterEach(() => fixture.tearDown());

  function sweeper(): PayloadRetentionSweeper {
    const { store } = fixture;
    const remover = new PayloadRemover(store, clock, cryptoRandom);
    return new PayloadRetentionSweeper(store, remover, (at, limit) => store.payloads().due(at.getTime(), limit), clock);
  }

  it('removes every expired payload with every copy, keeps the others, and never makes a run from a removed one', async () => {
    const { store } = fixture;
    const dispatch = new DispatchDeliveryUseCase(store, clock, new ParkDispatchUseCase(store, clock));
    // Expiring: 40 that got their run, 10 on a held webhook still waiting; kept: 20 expiring later.
    const ran: string[] = [];
    for (let i = 0; i < 40; i++) ran.push(await fixture.deliver(OTHER, i, undefined, { text: marker(i), expiresAt: PAYLOAD_EXPIRES_AT }));
    await fixture.append(Streams.webhook(HELD), heldEvent(HELD));
    const waiting: string[] = [];
    for (let i = 40; i < 50; i++)
      waiting.push(await fixture.deliver(HELD, i, undefined, { text: marker(i), expiresAt: PAYLOAD_EXPIRES_AT }));
    const kept: string[] = [];
    for (let i = 50; i < 70; i++) kept.push(await fixture.deliver(OTHER, i, undefined, { text: marker(i), expiresAt: LATER }));
    for (const event of await store.readAll({ limit: 10_000, filter: { streamPrefixes: ['delivery-'] } })) {
      await dispatch.execute({ delivery: event.data as never, position: event.position, eventId: event.id, traceparent: '' });
    }
    expect((await fixture.runsInOrder()).length).toBe(60); // the held ones wait

    now = new Date('2026-02-01T00:00:00.000Z');
    const report = await sweeper().sweep();
    expect(report.removed).toBe(50);
    expect(report.reclaimed?.complete).toBe(true);

    const reader = new PayloadReader(store);
    const states = await reader.lookup([...ran, ...waiting, ...kept]);
    for (const id of [...ran, ...waiting]) expect(states.get(id)).toMatchObject({ state: 'expired' });
    for (const id of kept) expect(states.get(id)?.state).toBe('kept');
    // Removed means removed: no expired marker in any file of the store; every kept one still there.
    expect(
      onDisk(
        fixture.directory,
        Array.from({ length: 50 }, (_, i) => marker(i)),
      ),
    ).toEqual([]);
    expect(
      onDisk(
        fixture.directory,
        Array.from({ length: 20 }, (_, i) => marker(50 + i)),
      ),
    ).toHaveLength(20);

    // The waiting ones were withheld and parked at once; a later dispatch (a release) parks, never runs.
    const parked = await store.readAll({ limit: 10_000, filter: { streamPrefixes: ['parked-'] } });
    expect(parked.map((event) => (event.data as { deliveryId: string; error: string }).error)).toEqual(
      waiting.map(() => expect.stringMatching(/^payload_removed: /) as unknown),
    );
    await fixture.append(Streams.webhook(HELD), releasedEvent(HELD));
    const [released] = await store.readStream(Streams.webhook(HELD), { fromRevision: 2n });
    const [first] = await store.readStream(Streams.delivery(waiting[0]));
    const outcome = await dispatch.execute({
      delivery: first.data as never,
      position: first.position,
      eventId: first.id,
      traceparent: '',
      request: { by: 'release', at: released.position, discard: false },
    });
    expect(outcome).toMatchObject({ kind: 'parked', error: expect.stringMatching(/^payload_removed: /) as unknown });
    expect((await fixture.runsInOrder()).length).toBe(60);
    const removals = await store.readAll({ limit: 100, filter: { streamPrefixes: ['payload_removal-'] } });
    expect(removals).toHaveLength(1);
    expect(removals[0].data).toMatchObject({ reason: 'expired', erasureId: null });
    expect((removals[0].data as { deliveryIds: string[] }).deliveryIds.sort()).toEqual([...ran, ...waiting].sort());
  });

  it('is idempotent, and asks the store to reclaim only after a removal or once an hour', async () => {
    const { store } = fixture;
    for (let i = 0; i < 5; i++) await fixture.deliver(OTHER, i, undefined, { text: marker(i), expiresAt: PAYLOAD_EXPIRES_AT });
    now = new Date('2026-02-01T00:00:00.000Z');
    const sweeps = sweeper();
    expect((await sweeps.sweep()).removed).toBe(5);
    const again = await sweeps.sweep();
    expect(again).toEqual({ removed: 0 });
    now = new Date('2026-02-01T01:00:00.000Z');
    expect((await sweeps.sweep()).reclaimed?.complete).toBe(true);
    expect(await store.readAll({ limit: 100, filter: { streamPrefixes: ['payload_removal-'] } })).toHaveLength(1);
  });

  it('given a sweep killed after recording the removal but before overwriting, then the next sweep finishes it: nothing half-removed, no second park', async () => {
    const { store } = fixture;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await fixture.deliver(OTHER, i, undefined, { text: marker(i), expiresAt: PAYLOAD_EXPIRES_AT }));
    now = new Date('2026-02-01T00:00:00.000Z');
    // The process dies at the overwrite: everything before it (withheld runs, parks, PayloadsRemoved) is durable.
    const payloads = store.payloads();
    const dyingPayloads: PayloadStore = {
      get: (keys) => payloads.get(keys),
      remove: () => Promise.reject(new Error('killed')),
      due: (at, limit) => payloads.due(at, limit),
      scan: (needle, options) => payloads.scan(needle, options),
      reclaim: (at) => payloads.reclaim(at),
    };
    const dying = new Proxy(store, {
      get: (target, property, receiver) => (property === 'payloads' ? () => dyingPayloads : Reflect.get(target, property, receiver)),
    });
    const due = (at: Date, limit: number): Promise<readonly string[]> => payloads.due(at.getTime(), limit);
    const first = new PayloadRetentionSweeper(store, new PayloadRemover(dying, clock, cryptoRandom), due, clock);
    await expect(first.sweep()).rejects.toThrow('killed');
    expect((await new PayloadReader(store).lookup(ids)).get(ids[0])?.state).toBe('kept');

    expect((await sweeper().sweep()).removed).toBe(5);
    const states = await new PayloadReader(store).lookup(ids);
    expect(ids.map((id) => states.get(id)?.state)).toEqual(ids.map(() => 'expired'));
    expect(
      onDisk(
        fixture.directory,
        ids.map((_, i) => marker(i)),
      ),
    ).toEqual([]);
    // Parked once each (a park is keyed by its delivery), withheld once each; the removal recorded twice, as one fact.
    expect(await store.readAll({ limit: 100, filter: { streamPrefixes: ['parked-'] } })).toHaveLength(5);
    const withheld = (await store.readAll({ limit: 100, filter: { streamPrefixes: ['run-'] } })).filter((e) => e.type === 'RunWithheld');
    expect(withheld).toHaveLength(5);
    expect(await store.readAll({ limit: 100, filter: { streamPrefixes: ['payload_removal-'] } })).toHaveLength(2);
  });

  it('a CLI replay to the dispatcher after a removal makes no run: the withheld delivery parks, the one that ran stays as it was', async () => {
    const { store } = fixture;
    const dispatch = new DispatchDeliveryUseCase(store, clock, new ParkDispatchUseCase(store, clock));
    const ran = await fixture.deliver(OTHER, 1, undefined, { text: marker(1), expiresAt: PAYLOAD_EXPIRES_AT });
    const [ranEvent] = await store.readStream(Streams.delivery(ran));
    await dispatch.execute({ delivery: ranEvent.data as never, position: ranEvent.position, eventId: ranEvent.id, traceparent: '' });
    await fixture.append(Streams.webhook(HELD), heldEvent(HELD));
    const waiting = await fixture.deliver(HELD, 2, undefined, { text: marker(2), expiresAt: PAYLOAD_EXPIRES_AT });
    now = new Date('2026-02-01T00:00:00.000Z');
    await sweeper().sweep();
    await fixture.append(Streams.webhook(HELD), releasedEvent(HELD));
    const replay = async (id: string): Promise<unknown> => {
      const [event] = await store.readStream(Streams.delivery(id));
      return dispatch.execute({
        delivery: event.data as never,
        position: event.position,
        eventId: event.id,
        traceparent: '',
        request: { by: 'replay' },
      });
    };
    expect(await replay(ran)).toMatchObject({ kind: 'already_created' });
    expect(await replay(waiting)).toMatchObject({ kind: 'parked', error: expect.stringMatching(/^payload_removed: /) as unknown });
    expect(await fixture.runsInOrder()).toEqual([ran]);
  });
});
