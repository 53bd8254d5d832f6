import type { DeliveryToDispatch, DispatchDelivery } from '@wts/application';
import { tracedDispatch } from './traced-dispatch.instrumentation';
import { tracingEnabled } from './tracing';

describe('tracedDispatch while tracing is off', () => {
  it('given tracing is not started, when a delivery is dispatched, then the inner dispatch answers, with the same input', async () => {
    const calls: string[] = [];
    const inner: DispatchDelivery = {
      execute: async (input) => (calls.push(`execute ${input.eventId}`), { kind: 'created', runId: 'run_1' }),
    };
    const input = { eventId: 'evt-1', traceparent: '' } as DeliveryToDispatch;
    expect(tracingEnabled()).toBe(false);

    const traced = tracedDispatch(inner);

    await expect(traced.execute(input)).resolves.toEqual({ kind: 'created', runId: 'run_1' });
    expect(calls).toEqual(['execute evt-1']);
  });
});
