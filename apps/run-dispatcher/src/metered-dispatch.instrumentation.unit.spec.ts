import type {
  DeliveryNotification,
  DeliveryToDispatch,
  DispatchDelivery,
  DispatchOutcome,
  DispatchToPark,
  NotifiedDispatchOutcome,
} from '@wts/application';
import { metrics } from '@wts/observability';
import { meteredDispatch, meteredNotifiedDispatch, meteredPark } from './metered-dispatch.instrumentation';

const input = { traceparent: '' } as DeliveryToDispatch;
const runs = async (outcome: string): Promise<number> =>
  (await metrics.runs.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
const unverified = async (): Promise<number> => (await metrics.unverifiedNotifications.get()).values[0]?.value ?? 0;

const dispatching = (outcome: DispatchOutcome): DispatchDelivery => ({ execute: async () => outcome });

describe('meteredDispatch and meteredNotifiedDispatch: dispatch outcomes counted', () => {
  it('given a dispatch that creates a run, when executed, then wts_runs_total{created} grows by one and the outcome is handed back', async () => {
    const before = await runs('created');
    const outcome = await meteredDispatch(dispatching({ kind: 'created', runId: 'run_1' })).execute(input);
    expect(outcome).toEqual({ kind: 'created', runId: 'run_1' });
    expect(await runs('created')).toBe(before + 1);
  });

  it('given the worker parks a delivery, then wts_runs_total{parked} grows by one', async () => {
    const before = await runs('parked');
    const parked: DispatchToPark[] = [];
    await meteredPark({ execute: async (record) => void parked.push(record) }).execute({
      sourceEventId: 'evt-1',
      sourceStream: 'delivery-dlv_1',
      sourceType: 'DeliveryAccepted',
      error: 'failed too often',
    });
    expect(await runs('parked')).toBe(before + 1);
    expect(parked).toHaveLength(1);
  });

  it('given a failing dispatch, then nothing is counted and the error goes through', async () => {
    const before = await runs('created');
    const failing: DispatchDelivery = { execute: async () => Promise.reject(new Error('store down')) };
    await expect(meteredDispatch(failing).execute(input)).rejects.toThrow('store down');
    expect(await runs('created')).toBe(before);
  });

  it('given a notification the store does not confirm, then wts_unverified_notifications_total grows by one; a run outcome is left to the inner dispatch', async () => {
    const before = await unverified();
    const createdBefore = await runs('created');
    const answering = (outcome: NotifiedDispatchOutcome) => meteredNotifiedDispatch({ execute: async () => outcome });
    const notification = { eventId: 'e', streamId: 's', traceparent: '' } as DeliveryNotification;
    await answering({ kind: 'unverified', error: 'absent' }).execute(notification);
    await answering({ kind: 'created', runId: 'run_1' }).execute(notification);
    expect(await unverified()).toBe(before + 1);
    expect(await runs('created')).toBe(createdBefore);
  });
});
