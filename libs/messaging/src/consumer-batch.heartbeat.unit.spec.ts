import { Signal } from '@wts/runtime';
import type { EachBatchPayload } from 'kafkajs';
import { BatchHeartbeat, type BatchHeartbeatOptions } from './consumer-batch.heartbeat';
import { silentMessagingLogger } from './kafka-client.factory';

function fakePayload(): { payload: EachBatchPayload; beats: () => number; state: { running: boolean; stale: boolean } } {
  let beats = 0;
  const state = { running: true, stale: false };
  const payload = {
    heartbeat: async () => {
      beats += 1;
    },
    isRunning: () => state.running,
    isStale: () => state.stale,
  } as unknown as EachBatchPayload;
  return { payload, beats: () => beats, state };
}

/** A heartbeat on `payload` every `heartbeatIntervalMs`, for a consumer that keeps running unless `options` say otherwise. */
function heartbeatOn(payload: EachBatchPayload, heartbeatIntervalMs: number, options: Partial<BatchHeartbeatOptions> = {}): BatchHeartbeat {
  return new BatchHeartbeat(payload, {
    heartbeatIntervalMs,
    stopped: () => false,
    interrupt: new Signal(),
    logger: silentMessagingLogger,
    ...options,
  });
}

describe('BatchHeartbeat', () => {
  it('given a current batch, when waiting longer than the interval, then it heartbeats along the way and waits the whole time', async () => {
    // Fake timers: on a loaded machine a real 10 ms sleep can take the whole 100 ms, and then there is one beat.
    jest.useFakeTimers();
    try {
      const { payload, beats } = fakePayload();
      const heartbeat = heartbeatOn(payload, 10);
      const started = Date.now();
      let waited = false;
      const waiting = heartbeat.wait(100).then(() => (waited = true));
      await jest.advanceTimersByTimeAsync(90);
      expect(waited).toBe(false);
      await jest.advanceTimersByTimeAsync(10);
      await waiting;
      expect(Date.now() - started).toBe(100);
      expect(beats()).toBe(10);
    } finally {
      jest.useRealTimers();
    }
  });

  it('given the consumer stops during a wait, when the stop is signalled, then the wait ends early and the batch is no longer current', async () => {
    const { payload } = fakePayload();
    let stopped = false;
    const interrupt = new Signal();
    const heartbeat = heartbeatOn(payload, 5_000, { stopped: () => stopped, interrupt });
    const started = Date.now();
    const waiting = heartbeat.wait(10_000);
    stopped = true;
    interrupt.notify();
    await waiting;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(heartbeat.current()).toBe(false);
  });

  it('given a stale batch, when asked, then it is not current', () => {
    const { payload, state } = fakePayload();
    const heartbeat = heartbeatOn(payload, 20);
    expect(heartbeat.current()).toBe(true);
    state.stale = true;
    expect(heartbeat.current()).toBe(false);
  });

  it('given slow work, when awaited, then it heartbeats while the work runs and returns its result', async () => {
    const { payload, beats } = fakePayload();
    const heartbeat = heartbeatOn(payload, 100);
    const result = await heartbeat.during(new Promise((resolve) => setTimeout(() => resolve('done'), 300)));
    expect(result).toBe('done');
    expect(beats()).toBeGreaterThanOrEqual(2);
  });
});
