import type { Subscription } from './event-store.port';

/** The subscriptions an adapter has open, so close() can stop them all first. */
export class OpenSubscriptions {
  private readonly open = new Set<Subscription>();

  /**
   * Tracks a subscription until it ends. Also marks `done` as handled: a dead subscription is
   * reported through `done`, never as an unhandled rejection that would kill the process.
   */
  track<S extends Subscription>(subscription: S): S {
    this.open.add(subscription);
    const forget = (): void => void this.open.delete(subscription);
    subscription.done.then(forget, forget);
    return subscription;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.open].map((subscription) => subscription.stop()));
  }
}
