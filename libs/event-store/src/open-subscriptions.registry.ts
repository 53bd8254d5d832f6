import type { Subscription } from './event-store.port';

/** The subscriptions an adapter has open, so close() can stop them all first. */
export class OpenSubscriptions {
  private readonly open = new Set<Subscription>();
  private closing: Promise<void> | undefined;

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

  private async stopAll(): Promise<void> {
    await Promise.all([...this.open].map((subscription) => subscription.stop()));
  }

  /**
   * An adapter's close(): stops every subscription (after their handlers in flight), then runs
   * `release`. Once: later calls get the first call's promise.
   */
  closeThen(release: () => Promise<void> | void): Promise<void> {
    this.closing ??= (async () => {
      await this.stopAll();
      await release();
    })();
    return this.closing;
  }
}
