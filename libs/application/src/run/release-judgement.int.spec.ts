import { ACCOUNT_CATALOG_STREAM, Streams, type DeliveryAccepted, type DispatchParked, type RunCreated } from '@wts/contracts';
import { ACCOUNT_A, ROUTINE_ID, eventually } from '@wts/testing';
import { systemClock } from '../shared/system-runtime.adapter';
import { DISCARDED_BY_OPERATOR, DispatchDeliveryUseCase, type DeliveryToDispatch, type DispatchRequest } from './dispatch-delivery.usecase';
import { ParkDispatchUseCase } from './park-dispatch.usecase';
import { HELD, ReleaseDrainFixture, T0, heldEvent, releasedEvent } from './testing/release-drain.fixtures';

const OUTSIDER = 'acc_BBBBBBBBBBBBBBBBBBBBBB';

/**
 * A release judges each held delivery as things stand at the `WebhookReleased` event — the routine's
 * instructions, tools, mode and scope, the safety block, whether the trigger account is active —
 * never as they stood at acceptance; a release with discard parks them all. Deterministic: a later
 * change, a second drain or a replay judge the same way.
 */
describe('a release judges held deliveries as things stand at the release', () => {
  let f: ReleaseDrainFixture;

  beforeEach(async () => {
    f = new ReleaseDrainFixture();
    await f.setUp();
    await f.connectAccount(OUTSIDER, 'b@example.com');
    await f.append(Streams.routine(ROUTINE_ID), {
      type: 'RoutineUpdated',
      data: {
        routineId: ROUTINE_ID,
        changes: { instructions: 'OLD', tools: [{ name: 'mail.send', sendsExternally: true }], accountScope: [ACCOUNT_A, OUTSIDER] },
        updatedAt: T0,
      },
    });
  });

  afterEach(() => f.tearDown());

  const updateRoutine = (changes: Record<string, unknown>): Promise<void> =>
    f.append(Streams.routine(ROUTINE_ID), { type: 'RoutineUpdated', data: { routineId: ROUTINE_ID, changes, updatedAt: T0 } });
  const setActive = (accountId: string, active: boolean): Promise<void> =>
    f.append(ACCOUNT_CATALOG_STREAM, { type: 'AccountUpdated', data: { accountId, active, updatedAt: T0 } });

  async function drainOnce(
    dispatch = new DispatchDeliveryUseCase(f.store, systemClock, new ParkDispatchUseCase(f.store, systemClock)),
  ): Promise<void> {
    const releases: string[] = [];
    const drain = f.worker(dispatch, (webhookId) => releases.push(webhookId));
    await drain.start();
    await eventually(() => releases.length === 1 || undefined, 10_000, 'the release drained', 10).finally(() => drain.stop());
  }

  async function accepted(
    deliveryId: string,
  ): Promise<{ readonly data: DeliveryAccepted['data']; readonly id: string; position: DeliveryToDispatch['position'] }> {
    const [event] = await f.store.readStream(Streams.delivery(deliveryId));
    return { data: event!.data as DeliveryAccepted['data'], id: event!.id, position: event!.position };
  }

  async function runOf(deliveryId: string): Promise<RunCreated['data'] | undefined> {
    const { data } = await accepted(deliveryId);
    const [run] = await f.store.readStream(Streams.run(data.runId));
    return run?.data as RunCreated['data'] | undefined;
  }

  async function parkErrorOf(deliveryId: string): Promise<string | undefined> {
    const { id } = await accepted(deliveryId);
    const [park] = await f.store.readStream(Streams.parked(id));
    return (park?.data as DispatchParked['data'] | undefined)?.error;
  }

  /** Where an operator's re-dispatch is recorded: after everything so far. */
  async function redispatchRequested(): Promise<DeliveryToDispatch['position']> {
    const id = `op-${Math.random().toString(36).slice(2)}`;
    await f.append(Streams.operatorAction(id), {
      type: 'OperatorActionRecorded',
      data: { action: 'redispatch_parked', detail: {}, at: T0 },
    });
    const [recorded] = await f.store.readStream(Streams.operatorAction(id));
    return recorded!.position;
  }

  async function dispatchAgain(deliveryId: string, request: DispatchRequest): Promise<string> {
    const { data, id, position } = await accepted(deliveryId);
    const dispatch = new DispatchDeliveryUseCase(f.store, systemClock, new ParkDispatchUseCase(f.store, systemClock));
    return (await dispatch.execute({ delivery: data, position, eventId: id, traceparent: '', request })).kind;
  }

  it('runs with the routine as changed during the hold, and parks the account it now leaves out of scope', async () => {
    await f.append(Streams.webhook(HELD), heldEvent(HELD));
    const inScope = [await f.deliver(HELD, 1), await f.deliver(HELD, 2)];
    const outside = await f.deliver(HELD, 3, OUTSIDER);
    // The fix made during the hold: new instructions, no tool, and the second account out of scope.
    await updateRoutine({ instructions: 'NEW', tools: [], accountScope: [ACCOUNT_A] });
    await f.append(Streams.webhook(HELD), releasedEvent(HELD));
    // A change after the release is not what the release judged on.
    await updateRoutine({ instructions: 'LATER', accountScope: [ACCOUNT_A, OUTSIDER] });

    await drainOnce();

    expect(await f.runsInOrder()).toEqual(inScope);
    for (const id of inScope) expect((await runOf(id))?.routine).toEqual({ name: 'T', instructions: 'NEW', tools: [], mode: 'supervised' });
    expect(await runOf(outside)).toBeUndefined();
    expect(await parkErrorOf(outside)).toMatch(/^account_out_of_scope: /);
    // Judged again (a replay of the release, the command line's replay): the same verdicts.
    expect(await dispatchAgain(outside, { by: 'replay' })).toBe('parked');
    expect(await dispatchAgain(inScope[0]!, { by: 'replay' })).toBe('already_created');
    // The dispatcher's own path leaves a held delivery to the release, before and after it.
    expect(await dispatchAgain(outside, { by: 'dispatcher' })).toBe('held');
  });

  it('parks a held delivery whose trigger account was deactivated, and one whose routine became unsafe, during the hold', async () => {
    await updateRoutine({ tools: [] });
    await f.append(Streams.webhook(HELD), heldEvent(HELD));
    const inactive = await f.deliver(HELD, 1, OUTSIDER);
    await setActive(OUTSIDER, false);
    await f.append(Streams.webhook(HELD), releasedEvent(HELD));
    await drainOnce();
    expect(await parkErrorOf(inactive)).toMatch(/^account_inactive: /);

    await setActive(OUTSIDER, true);
    await f.append(Streams.webhook(HELD), heldEvent(HELD));
    const unsafe = await f.deliver(HELD, 2);
    await updateRoutine({ mode: 'autonomous', tools: [{ name: 'mail.send', sendsExternally: true }] });
    await f.append(Streams.webhook(HELD), releasedEvent(HELD));
    await drainOnce();
    expect(await parkErrorOf(unsafe)).toMatch(/^webhook_blocked: /);
    expect(await f.runsInOrder()).toEqual([]);

    // Fixed, then re-dispatched: judged as things stand at the re-dispatch, it runs.
    await updateRoutine({ mode: 'supervised', tools: [] });
    const at = await redispatchRequested();
    // Made unsafe again after the re-dispatch was recorded: not what it is judged on.
    await updateRoutine({ mode: 'autonomous', tools: [{ name: 'mail.send', sendsExternally: true }] });
    expect(await dispatchAgain(inactive, { by: 'redispatch', at })).toBe('created');
    expect(await dispatchAgain(unsafe, { by: 'redispatch', at })).toBe('created');
  });

  it('a re-dispatch recorded while the hold still held the delivery leaves it to the release (never judged before it)', async () => {
    await f.append(Streams.webhook(HELD), heldEvent(HELD));
    const kept = await f.deliver(HELD, 1);
    const asked = await redispatchRequested();
    await updateRoutine({ instructions: 'FIXED' });
    await f.append(Streams.webhook(HELD), releasedEvent(HELD));
    expect(await dispatchAgain(kept, { by: 'redispatch', at: asked })).toBe('held');
    await drainOnce();
    expect((await runOf(kept))?.routine.instructions).toBe('FIXED');
  });

  it('a release with discard parks every held delivery (discarded_by_operator) and makes no run; a re-dispatch runs one', async () => {
    await f.append(Streams.webhook(HELD), heldEvent(HELD));
    const kept = [await f.deliver(HELD, 1), await f.deliver(HELD, 2), await f.deliver(HELD, 3)];
    await f.append(Streams.webhook(HELD), releasedEvent(HELD, true));
    const after = await f.deliver(HELD, 4); // after the release: runs as usual, not the drain's

    await drainOnce();
    expect(await f.runsInOrder()).toEqual([]);
    for (const id of kept) expect(await parkErrorOf(id)).toBe(DISCARDED_BY_OPERATOR);
    // Replayed from the command line, a discarded delivery stays parked; the next one runs.
    expect(await dispatchAgain(kept[0]!, { by: 'replay' })).toBe('parked');
    expect(await dispatchAgain(after, { by: 'dispatcher' })).toBe('created');
    // A mistaken discard: re-dispatching the park runs it, once.
    const at = await redispatchRequested();
    expect(await dispatchAgain(kept[1]!, { by: 'redispatch', at })).toBe('created');
    expect(await dispatchAgain(kept[1]!, { by: 'redispatch', at })).toBe('already_created');
    expect(await f.runsInOrder()).toEqual([after, kept[1]]);
  });
});
