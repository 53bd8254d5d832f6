import type { Subscription } from './event-store.port';
import { OpenSubscriptions } from './open-subscriptions.registry';

function subscription(log: string[], name: string): Subscription {
  let end: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (end = resolve));
  return {
    done,
    stop: async () => {
      log.push(`stop ${name}`);
      end();
      await done;
    },
  };
}

describe('OpenSubscriptions: an adapter close() that stops subscriptions first, once', () => {
  it('given open subscriptions, when closed twice, then each is stopped before the release, which runs once', async () => {
    const log: string[] = [];
    const open = new OpenSubscriptions();
    open.track(subscription(log, 'a'));
    open.track(subscription(log, 'b'));
    const release = async (): Promise<void> => void log.push('release');

    const first = open.closeThen(release);
    const second = open.closeThen(release);

    expect(second).toBe(first);
    await first;
    expect(log).toEqual(['stop a', 'stop b', 'release']);
  });

  it('given a subscription that ended by itself, when closed, then it is not stopped again', async () => {
    const log: string[] = [];
    const open = new OpenSubscriptions();
    const ended = open.track(subscription(log, 'a'));
    await ended.stop();

    await open.closeThen(() => void log.push('release'));

    expect(log).toEqual(['stop a', 'release']);
  });
});
