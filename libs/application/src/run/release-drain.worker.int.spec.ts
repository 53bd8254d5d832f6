import { Streams, type ServiceEvent } from '@wts/contracts';
import type { SqliteEventStore } from '@wts/event-store';
import { eventually } from '@wts/testing';
import { systemClock } from '../shared/system-runtime.adapter';
import { DispatchDeliveryUseCase, type DeliveryToDispatch, type DispatchOutcome } from './dispatch-delivery.usecase';
import { ParkDispatchUseCase } from './park-dispatch.usecase';
import { HELD, OTHER, ReleaseDrainFixture, heldEvent, releasedEvent } from './testing/release-drain.fixtures';
import { RELEASE_CHECKPOINT, releaseDrainCheckpoint, type ReleaseDrainWorker } from './release-drain.worker';

/** Counts what reaches the dispatcher's use case, and can stop answering after `failAfter` calls (a crash mid-release). */
class CountingDispatch extends DispatchDeliveryUseCase {
  readonly seen: string[] = [];
  failAfter = Infinity;
  /** Milliseconds each dispatch of these webhooks takes (a large, slow backlog). */
  readonly slowFor = new Map<string, number>();
  private crashed: (error: Error) => void = () => undefined;
  private readonly crash = new Promise<never>((_resolve, reject) => {
    this.crashed = reject;
  });
  constructor(store: SqliteEventStore) {
    super(store, systemClock, new ParkDispatchUseCase(store, systemClock));
    this.crash.catch(() => undefined);
  }
  /** The call in flight fails now (the process it ran in is gone). */
  kill(): void {
    this.crashed(new Error('killed'));
  }
  override async execute(input: DeliveryToDispatch): Promise<DispatchOutcome> {
    if (this.seen.length >= this.failAfter) return this.crash;
    this.seen.push(input.delivery.deliveryId);
    const delay = this.slowFor.get(input.delivery.webhookId);
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    return super.execute(input);
  }
}

describe('ReleaseDrainWorker', () => {
  let f: ReleaseDrainFixture;
  const append = (streamId: string, event: ServiceEvent): Promise<void> => f.append(streamId, event);
  const deliver = (webhookId: string, i: number): Promise<string> => f.deliver(webhookId, i);
  const runsInOrder = (): Promise<string[]> => f.runsInOrder();
  const worker = (dispatch: DispatchDeliveryUseCase, onReleased?: (webhookId: string, count: number) => void): ReleaseDrainWorker =>
    f.worker(dispatch, onReleased);
  const held = heldEvent;
  const released = (webhookId: string): ServiceEvent => releasedEvent(webhookId);
  let store: SqliteEventStore;

  beforeEach(async () => {
    f = new ReleaseDrainFixture();
    store = f.store;
    await f.setUp();
  });

  afterEach(() => f.tearDown());

  it("runs exactly the held webhook's deliveries between hold and release, in order, across pages; each hold its own range", async () => {
    await deliver(HELD, 0); // before the hold: not the drain's
    await append(Streams.webhook(HELD), held(HELD));
    const firstHold: string[] = [];
    for (let i = 1; i <= 20; i++) {
      firstHold.push(await deliver(HELD, i));
      await deliver(OTHER, i); // interleaved: never the drain's
    }
    await append(Streams.webhook(HELD), released(HELD));
    await deliver(HELD, 100); // after the release: not the drain's
    await append(Streams.webhook(HELD), held(HELD));
    const secondHold = [await deliver(HELD, 200), await deliver(HELD, 201)];
    await append(Streams.webhook(HELD), released(HELD));

    const dispatch = new CountingDispatch(store);
    const releases: [string, number][] = [];
    const drain = worker(dispatch, (webhookId, count) => releases.push([webhookId, count]));
    await drain.start();
    await eventually(() => releases.length === 2 || undefined, 10_000, 'both releases drained', 10).finally(() => drain.stop());

    expect(releases).toEqual([
      [HELD, 20],
      [HELD, 2],
    ]);
    expect(dispatch.seen).toEqual([...firstHold, ...secondHold]);
    expect(await runsInOrder()).toEqual([...firstHold, ...secondHold]);
    expect(await store.checkpoints().load(RELEASE_CHECKPOINT)).toBeDefined();

    // Started again from its checkpoint: nothing is dispatched twice.
    const again = new CountingDispatch(store);
    const second = worker(again);
    await second.start();
    await new Promise((resolve) => setTimeout(resolve, 200)); // on purpose: room to dispatch again, which it must not
    await second.stop();
    expect(again.seen).toEqual([]);
  });

  it('stopped in the middle of a release (a crash), a new worker resumes from its page checkpoint: every run once, in order', async () => {
    await append(Streams.webhook(HELD), held(HELD));
    const deliveries: string[] = [];
    for (let i = 1; i <= 30; i++) deliveries.push(await deliver(HELD, i));
    await append(Streams.webhook(HELD), released(HELD));
    const [release] = (await store.readStream(Streams.webhook(HELD))).filter((event) => event.type === 'WebhookReleased');

    const crashing = new CountingDispatch(store);
    crashing.failAfter = 17;
    const first = worker(crashing);
    await first.start();
    await eventually(() => crashing.seen.length === 17 || undefined, 10_000, '17 dispatched', 10);
    // As if killed: its dispatch never answers again; what it did not checkpoint is left.
    const stopping = first.stop();
    crashing.kill();
    await stopping;
    const progress = await store.checkpoints().load(releaseDrainCheckpoint(release!.id));
    expect(progress).toBeDefined(); // pages of 7: two were done

    const resumed = new CountingDispatch(store);
    const releases: number[] = [];
    const second = worker(resumed, (_webhookId, count) => releases.push(count));
    await second.start();
    await eventually(() => releases.length === 1 || undefined, 10_000, 'the release drained', 10).finally(() => second.stop());
    // Resumed after the last page checkpointed (14 deliveries), not from the start.
    expect(resumed.seen).toEqual(deliveries.slice(14));
    expect(await runsInOrder()).toEqual(deliveries);
  });

  it("one webhook's large release does not hold up another webhook's, released after it", async () => {
    await append(Streams.webhook(HELD), held(HELD));
    await append(Streams.webhook(OTHER), held(OTHER));
    const large: string[] = [];
    for (let i = 1; i <= 40; i++) large.push(await deliver(HELD, i));
    const small = [await deliver(OTHER, 1), await deliver(OTHER, 2)];
    await append(Streams.webhook(HELD), released(HELD));
    await append(Streams.webhook(OTHER), released(OTHER));

    const dispatch = new CountingDispatch(store);
    dispatch.slowFor.set(HELD, 15); // 40 × 15 ms: the large release takes 600 ms or more
    const order: string[] = [];
    const drain = worker(dispatch, (webhookId) => order.push(webhookId));
    await drain.start();
    await eventually(() => order.length === 2 || undefined, 10_000, 'both releases drained', 10).finally(() => drain.stop());
    expect(order).toEqual([OTHER, HELD]);
    const runs = await runsInOrder();
    expect(runs.filter((id) => large.includes(id))).toEqual(large);
    expect(runs.filter((id) => small.includes(id))).toEqual(small);
    // The checkpoint passed both releases only once both were done.
    const [lastRelease] = (await store.readStream(Streams.webhook(OTHER))).filter((event) => event.type === 'WebhookReleased');
    expect(await store.checkpoints().load(RELEASE_CHECKPOINT)).toEqual(lastRelease!.position);
  });
});
