import type { EventStore, Subscription } from '@wts/event-store';
import { eventually } from '@wts/testing';
import { SubscriptionFollow } from './subscription-follow.worker';

/** A store whose subscriptions are made by hand: each one's `done` is settled by the spec. */
function storeOfSubscriptions(): { store: EventStore; subscriptions: { fail: (error: Error) => void; stopped: boolean }[] } {
  const subscriptions: { fail: (error: Error) => void; stopped: boolean }[] = [];
  const store = {
    subscribeToAll: (): Subscription => {
      let fail: (error: Error) => void = () => undefined;
      let end: () => void = () => undefined;
      const done = new Promise<void>((resolve, reject) => {
        fail = reject;
        end = resolve;
      });
      const entry = { fail, stopped: false };
      subscriptions.push(entry);
      return {
        done,
        stop: async () => {
          entry.stopped = true;
          end();
        },
      };
    },
  } as unknown as EventStore;
  return { store, subscriptions };
}

describe('SubscriptionFollow', () => {
  it('given the subscription fails, then it is told and follows again after retryDelayMs, from where `after` says', async () => {
    const { store, subscriptions } = storeOfSubscriptions();
    const failures: unknown[] = [];
    const after = jest.fn(() => undefined);
    const follow = new SubscriptionFollow({
      store,
      streamPrefix: 'delivery-',
      retryDelayMs: 30,
      after,
      handle: async () => undefined,
      onFailure: (error) => failures.push(error),
    });
    follow.follow();
    const failedAt = Date.now();
    subscriptions[0]!.fail(new Error('store down'));
    await eventually(() => subscriptions.length === 2, 3000, 'the second subscription', 1);
    expect(Date.now() - failedAt).toBeGreaterThanOrEqual(25);
    expect(failures).toEqual([new Error('store down')]);
    expect(after).toHaveBeenCalledTimes(2);
    subscriptions[1]!.fail(new Error('still down'));
    await eventually(() => subscriptions.length === 3, 3000, 'the third subscription (a fixed delay each time)', 1);
    await follow.stop();
    expect(subscriptions[2]!.stopped).toBe(true);
  });

  it('given a stop while it waits to follow again, then the wait ends and it never subscribes again', async () => {
    const { store, subscriptions } = storeOfSubscriptions();
    const follow = new SubscriptionFollow({
      store,
      streamPrefix: 'delivery-',
      retryDelayMs: 60_000,
      after: () => undefined,
      handle: async () => undefined,
      onFailure: () => undefined,
    });
    follow.follow();
    subscriptions[0]!.fail(new Error('store down'));
    await new Promise((resolve) => setImmediate(resolve));
    const started = Date.now();
    await follow.stop();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(subscriptions).toHaveLength(1);
  });
});
