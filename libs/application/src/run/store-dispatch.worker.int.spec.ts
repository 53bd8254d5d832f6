import { Streams, type DeliveryAccepted } from '@wts/contracts';
import { SqliteEventStore } from '@wts/event-store';
import { eventually, freshTextDelivery } from '@wts/testing';
import { useTempEventStore } from '../../../../test/support/temp-event-store.kit';
import { toAppend } from '../shared/event-envelope';
import { systemClock } from '../shared/system-runtime.adapter';
import { DispatchDeliveryUseCase, type DeliveryToDispatch, type DispatchOutcome } from './dispatch-delivery.usecase';
import { DISPATCH_ATTEMPTS_BEFORE_PARKING } from './dispatch-failure.policy';
import { ParkDispatchUseCase } from './park-dispatch.usecase';
import { StoreDispatchWorker } from './store-dispatch.worker';

const routineId = 'rtn_AAAAAAAAAAAAAAAAAAAAAA';
const accountId = 'acc_AAAAAAAAAAAAAAAAAAAAAA';

function delivery(n: number): DeliveryAccepted {
  const suffix = String(n).padStart(22, 'A');
  const ids = { deliveryId: `dlv_${suffix}`, runId: `run_${suffix}`, routineId, triggerAccount: { accountId, email: 'ops@example.com' } };
  return { type: 'DeliveryAccepted', data: freshTextDelivery(`delivery ${n}`, ids) };
}

/** Fails one delivery with a non-outage error every time (a bug or a refused event). */
class FailingFor extends DispatchDeliveryUseCase {
  attempts = 0;
  constructor(
    store: SqliteEventStore,
    private readonly poisoned: string,
  ) {
    super(store, systemClock, new ParkDispatchUseCase(store, systemClock));
  }
  override async execute(input: DeliveryToDispatch): Promise<DispatchOutcome> {
    if (input.delivery.deliveryId === this.poisoned) {
      this.attempts++;
      throw new Error('the store refused the event');
    }
    return super.execute(input);
  }
}

describe('StoreDispatchWorker', () => {
  const temp = useTempEventStore('worker');

  it('parks a delivery that keeps failing with a non-outage error, and the next delivery still gets its run', async () => {
    const context = { correlationId: 'c', causationId: 'c', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    let n = 0;
    const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    await temp.store.append(
      Streams.routine(routineId),
      toAppend(
        [
          {
            type: 'RoutineCreated',
            data: {
              routineId,
              name: 'T',
              instructions: 'i',
              tools: [],
              mode: 'supervised',
              accountScope: [accountId],
              createdAt: new Date().toISOString(),
            },
          },
        ],
        context,
        newId,
      ),
      'no_stream',
    );
    const [first, second] = [delivery(1), delivery(2)];
    for (const d of [first, second])
      await temp.store.append(Streams.delivery(d.data.deliveryId), toAppend([d], context, newId), 'no_stream');

    const dispatch = new FailingFor(temp.store, first.data.deliveryId);
    const outcomes: DispatchOutcome[] = [];
    const logger = { info: () => undefined, error: () => undefined };
    const worker = new StoreDispatchWorker({
      store: temp.store,
      checkpoints: temp.store.checkpoints(),
      dispatch,
      park: new ParkDispatchUseCase(temp.store, systemClock),
      logger,
      options: { checkpointEveryMs: 0, retryDelayMs: 5, maxRetryDelayMs: 10 },
      onDispatched: (o) => outcomes.push(o),
    });
    await worker.start();
    await eventually(() => outcomes.length >= 2, 5000, 'both outcomes', 10).finally(() => worker.stop());

    expect(dispatch.attempts).toBe(DISPATCH_ATTEMPTS_BEFORE_PARKING);
    expect(outcomes.find((o) => o.runId === first.data.runId)).toMatchObject({ kind: 'parked' });
    expect(outcomes.find((o) => o.runId === second.data.runId)).toEqual({ kind: 'created', runId: second.data.runId });
    const parked = await temp.store.readAll({ limit: 100, filter: { streamPrefixes: ['parked-'] } });
    expect(parked.map((e) => e.type)).toEqual(['DispatchParked']);
    expect(JSON.stringify(parked[0].data)).toContain('the store refused the event');
    expect(await temp.store.readStream(Streams.run(first.data.runId))).toEqual([]);
  });
});
