import { comparePositions, type EventToAppend, type RecordedEvent } from '../event-store.port';
import { eventually } from '@wts/testing';
import { collect, deferred, expectGlobalOrder, ids, newEvent, newEvents, sleep, type ContractContext } from './contract.fixtures';

/** How long to keep watching for events that must NOT arrive. */
const QUIET_MS = 150;

export function subscriptionContract(context: () => ContractContext): void {
  describe('subscribeToAll', () => {
    it('delivers existing then new events in global order, only from filtered streams', async () => {
      const { subject, ns } = context();
      const { store } = subject;
      const prefix = `${ns}delivery-`;
      const [e1, e2, e3, e4] = newEvents(4);
      await store.append(`${ns}delivery-1`, [e1], 'no_stream');
      await store.append(`${ns}deliveryx-1`, [newEvent()], 'no_stream');
      await store.append(`${ns}run-1`, [newEvent()], 'no_stream');
      await store.append(`${ns}delivery-2`, [e2], 'no_stream');

      const collector = collect(store, { filter: { streamPrefixes: [prefix] } });
      await collector.waitFor(2);
      await store.append(`${ns}deliveryx-2`, [newEvent()], 'no_stream');
      await store.append(`${ns}delivery-3`, [e3], 'no_stream');
      await store.append(`${ns}delivery-1`, [e4], 0n);
      await collector.waitFor(4);
      await sleep(QUIET_MS);
      await collector.subscription.stop();

      expect(ids(collector.events)).toEqual(ids([e1, e2, e3, e4]));
      expectGlobalOrder(collector.events);
      expect(collector.events.every((event) => event.streamId.startsWith(prefix))).toBe(true);
    });

    it('reports progress past filtered-out events and says when it is caught up', async () => {
      const { subject, ns } = context();
      const { store } = subject;
      await store.append(`${ns}webhook-1`, [newEvent()], 'no_stream');
      for (let index = 0; index < 40; index += 1) await store.append(`${ns}delivery-${index}`, [newEvent()], 'no_stream');
      const last = await store.append(`${ns}delivery-last`, [newEvent()], 'no_stream');
      if (last.kind !== 'appended') throw new Error('expected an append');

      let progress: RecordedEvent['position'] | undefined;
      let caughtUp = 0;
      const collector = collect(store, {
        filter: { streamPrefixes: [`${ns}webhook-`] },
        onProgress: (position) => {
          if (!progress || comparePositions(position, progress) > 0) progress = position;
        },
        onCaughtUp: () => (caughtUp += 1),
      });
      await collector.waitFor(1);
      // Every event up to the last delivery was seen or left out: the subscription is past it.
      await eventually(
        () => caughtUp > 0 || (progress !== undefined && comparePositions(progress, last.position) >= 0),
        10_000,
        'progress past the filtered events',
        5,
      );
      await collector.subscription.stop();
      expect(ids(collector.events)).toHaveLength(1);
    });

    it('awaits the handler: one event at a time, in order', async () => {
      const { subject, ns } = context();
      const events = newEvents(5);
      await subject.store.append(`${ns}slow`, events.slice(0, 3), 'no_stream');
      let inFlight = 0;
      let maxInFlight = 0;

      const collector = collect(subject.store, { filter: { streamPrefixes: [ns] } }, async () => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(5);
        inFlight -= 1;
      });
      await subject.store.append(`${ns}slow`, events.slice(3), 2n);
      await collector.waitFor(5);
      await collector.subscription.stop();

      expect(maxInFlight).toBe(1);
      expect(ids(collector.events)).toEqual(ids(events));
    });

    it('resumes from a saved checkpoint after a restart: nothing twice, nothing missed', async () => {
      const { subject, ns } = context();
      const filter = { streamPrefixes: [ns] };
      const checkpointName = `${ns}-projector`;
      const appendOne = (store: typeof subject.store, event: EventToAppend, index: number) =>
        store.append(`${ns}stream-${index}`, [event], 'no_stream');
      const events = newEvents(5);
      for (const [index, event] of events.slice(0, 3).entries()) await appendOne(subject.store, event, index);

      // First run: checkpoints after each event and stops itself after the second one.
      const first = collect(subject.store, { filter }, async (event, seen) => {
        await subject.checkpoints.save(checkpointName, event.position);
        if (seen.length === 2) void first.subscription.stop();
      });
      await first.subscription.done;
      for (const [index, event] of events.slice(3).entries()) await appendOne(subject.store, event, index + 3);

      let handles = { store: subject.store, checkpoints: subject.checkpoints };
      if (subject.reopen) {
        await subject.store.close();
        handles = await subject.reopen();
      }
      const checkpoint = await handles.checkpoints.load(checkpointName);
      expect(checkpoint).toEqual(first.events[1].position);
      const second = collect(handles.store, { filter, after: checkpoint });
      await second.waitFor(3);
      await sleep(QUIET_MS);
      await second.subscription.stop();

      expect(ids(first.events)).toEqual(ids(events.slice(0, 2)));
      expect(ids(second.events)).toEqual(ids(events.slice(2)));
    });

    it('ends the subscription when the handler throws: done rejects with that error', async () => {
      const { subject, ns } = context();
      await subject.store.append(`${ns}boom`, newEvents(3), 'no_stream');
      const seen: string[] = [];

      const subscription = subject.store.subscribeToAll({ filter: { streamPrefixes: [ns] } }, (event) => {
        seen.push(event.id);
        if (seen.length === 2) throw new Error('handler failed: boom');
      });

      await expect(subscription.done).rejects.toThrow('handler failed: boom');
      await subject.store.append(`${ns}boom`, [newEvent()], 2n);
      await sleep(QUIET_MS);
      expect(seen).toHaveLength(2);
      await expect(subscription.stop()).resolves.toBeUndefined();
    });

    it('stop() resolves, resolves done, and nothing is delivered afterwards', async () => {
      const { subject, ns } = context();
      const collector = collect(subject.store, { filter: { streamPrefixes: [ns] } });
      await subject.store.append(`${ns}stop`, [newEvent()], 'no_stream');
      await collector.waitFor(1);

      await expect(collector.subscription.stop()).resolves.toBeUndefined();
      await expect(collector.subscription.done).resolves.toBeUndefined();
      await subject.store.append(`${ns}stop`, [newEvent()], 0n);
      await sleep(QUIET_MS);

      expect(collector.events).toHaveLength(1);
      await expect(collector.subscription.stop()).resolves.toBeUndefined();
    });

    it('stop() waits for the handler in flight and delivers nothing after it', async () => {
      const { subject, ns } = context();
      await subject.store.append(`${ns}gate`, newEvents(2), 'no_stream');
      const gate = deferred();
      let started = 0;
      let finished = 0;
      const subscription = subject.store.subscribeToAll({ filter: { streamPrefixes: [ns] } }, async () => {
        started += 1;
        await gate.promise;
        finished += 1;
      });
      await eventually(() => started === 1, 3000, 'the handler to start', 5);

      let stopped = false;
      const stopping = subscription.stop().then(() => (stopped = true));
      await sleep(50);
      expect(stopped).toBe(false);
      gate.resolve();
      await stopping;

      expect({ started, finished }).toEqual({ started: 1, finished: 1 });
    });

    it('close() stops the subscriptions first', async () => {
      const { subject, ns } = context();
      const collector = collect(subject.store, { filter: { streamPrefixes: [ns] } });
      await subject.store.append(`${ns}close`, [newEvent()], 'no_stream');
      await collector.waitFor(1);

      await subject.store.close();

      await expect(collector.subscription.done).resolves.toBeUndefined();
      await expect(subject.store.close()).resolves.toBeUndefined();
    });
  });
}
