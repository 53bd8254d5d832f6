import type { ServiceEvent } from '@wts/contracts';
import type { GlobalPosition, RecordedEvent } from '@wts/event-store';
import { LISTING_RETENTION_PER_ROUTINE, ServiceReadModel } from './service.read-model';

const ROUTINE = 'rtn_AAAAAAAAAAAAAAAAAAAAAA';
const OTHER_ROUTINE = 'rtn_BBBBBBBBBBBBBBBBBBBBBB';
const WEBHOOK = 'whk_AAAAAAAAAAAAAAAAAAAAAA';
const ACCOUNT = 'acc_AAAAAAAAAAAAAAAAAAAAAA';
const T0 = '2024-05-01T12:00:00.000Z';
const TRIGGER = { accountId: ACCOUNT, email: 'ops@example.com' };

const at = (n: number): GlobalPosition => ({ commit: BigInt(n), prepare: BigInt(n) });

let sequence = 0;
function recorded(position: number, event: { type: string; data: object }, streamId = 'any-stream'): RecordedEvent {
  sequence += 1;
  return {
    id: `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
    streamId,
    revision: 0n,
    position: at(position),
    type: event.type,
    data: event.data,
    metadata: {},
    createdAt: new Date(T0),
  };
}

/** Feeds events at positions 1, 2, 3, … */
function modelWith(events: readonly ServiceEvent[]): ServiceReadModel {
  const model = new ServiceReadModel();
  events.forEach((event, index) => model.apply(recorded(index + 1, event)));
  return model;
}

const accountConnected: ServiceEvent = {
  type: 'AccountConnected',
  data: { accountId: ACCOUNT, email: 'ops@example.com', aliases: ['Team@Example.com'], connectedAt: T0 },
};
const primary: ServiceEvent = { type: 'PrimaryAccountChanged', data: { accountId: ACCOUNT, previousAccountId: null, changedAt: T0 } };
const routineCreated = (routineId = ROUTINE): ServiceEvent => ({
  type: 'RoutineCreated',
  data: {
    routineId,
    name: 'Triage',
    instructions: 'File it.',
    tools: [{ name: 'email.send', sendsExternally: true }],
    mode: 'supervised',
    accountScope: [ACCOUNT],
    createdAt: T0,
  },
});
const webhookEnabled = (webhookId = WEBHOOK, routineId = ROUTINE): ServiceEvent => ({
  type: 'WebhookEnabled',
  data: {
    webhookId,
    routineId,
    secretDigest: 'a'.repeat(64),
    defaultAccount: TRIGGER,
    accountOverrideAllowed: true,
    enabledAt: T0,
  },
});
const deliveryAccepted = (n: number, routineId = ROUTINE): ServiceEvent => ({
  type: 'DeliveryAccepted',
  data: {
    deliveryId: `dlv_${String(n).padStart(22, '0')}`,
    webhookId: WEBHOOK,
    routineId,
    runId: `run_${String(n).padStart(22, '0')}`,
    triggerAccount: TRIGGER,
    payload: { format: 'text', text: `payload ${n}` },
    contentType: 'text/plain',
    idempotencyKey: n % 2 === 0 ? `key-${n}` : null,
    requestDigest: 'd'.repeat(64),
    receivedAt: new Date(Date.parse(T0) + n * 1000).toISOString(),
  },
});
const runCreated = (n: number, routineId = ROUTINE): ServiceEvent => ({
  type: 'RunCreated',
  data: {
    runId: `run_${String(n).padStart(22, '0')}`,
    routineId,
    webhookId: WEBHOOK,
    deliveryId: `dlv_${String(n).padStart(22, '0')}`,
    triggerAccount: TRIGGER,
    routine: { name: 'Triage', tools: [], instructions: 'File it.', mode: 'supervised' },
    initialMessage: 'framed',
    payload: { format: 'text', text: `payload ${n}` },
    status: 'created',
    createdAt: new Date(Date.parse(T0) + n * 1000).toISOString(),
  },
});

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('ServiceReadModel — folding', () => {
  it('starts empty, before the first position', () => {
    const model = new ServiceReadModel();
    expect(model.position.commit).toBeLessThan(0n);
    expect(model.accounts().accounts.size).toBe(0);
    expect(model.routine(ROUTINE)).toBeUndefined();
    expect(model.webhook(WEBHOOK)).toBeUndefined();
    expect(model.webhookOfRoutine(ROUTINE)).toBeUndefined();
    expect(model.deliveriesOf(ROUTINE, 10)).toEqual([]);
    expect(model.runsOf(ROUTINE, 10)).toEqual([]);
  });

  it('folds the account catalog', () => {
    const model = modelWith([accountConnected, primary]);
    expect(model.accounts().primaryAccountId).toBe(ACCOUNT);
    expect(model.accounts().accounts.get(ACCOUNT)).toEqual({
      accountId: ACCOUNT,
      email: 'ops@example.com',
      aliases: ['Team@Example.com'],
      active: true,
    });
  });

  it('folds routines, created and updated', () => {
    const model = modelWith([
      routineCreated(),
      { type: 'RoutineUpdated', data: { routineId: ROUTINE, changes: { mode: 'autonomous' }, updatedAt: '2024-05-02T00:00:00.000Z' } },
    ]);
    expect(model.routine(ROUTINE)).toMatchObject({ routineId: ROUTINE, name: 'Triage', mode: 'autonomous', updatedAt: '2024-05-02T00:00:00.000Z' });
  });

  it('ignores an update for an unknown routine', () => {
    const model = modelWith([
      { type: 'RoutineUpdated', data: { routineId: ROUTINE, changes: { name: 'x' }, updatedAt: T0 } },
    ]);
    expect(model.routine(ROUTINE)).toBeUndefined();
  });

  it('folds webhooks by id and by routine, through rotate, block and disable', () => {
    const model = modelWith([
      webhookEnabled(),
      { type: 'SecretRotated', data: { webhookId: WEBHOOK, secretDigest: 'b'.repeat(64), rotatedAt: T0 } },
      { type: 'WebhookBlocked', data: { webhookId: WEBHOOK, reason: 'unsafe', blockedAt: T0 } },
      { type: 'WebhookDisabled', data: { webhookId: WEBHOOK, disabledAt: T0 } },
    ]);
    const expected = {
      status: 'disabled',
      webhookId: WEBHOOK,
      routineId: ROUTINE,
      secretDigest: 'b'.repeat(64),
      defaultAccount: TRIGGER,
      accountOverrideAllowed: true,
      blocked: true,
      blockedReason: 'unsafe',
    };
    expect(model.webhook(WEBHOOK)).toEqual(expected);
    expect(model.webhookOfRoutine(ROUTINE)).toEqual(expected);
  });

  it('ignores lifecycle events of a webhook that was never enabled', () => {
    const model = modelWith([{ type: 'WebhookDisabled', data: { webhookId: WEBHOOK, disabledAt: T0 } }]);
    expect(model.webhook(WEBHOOK)).toBeUndefined();
  });

  it('keeps the first webhook of a routine (the URL is stable)', () => {
    const model = modelWith([webhookEnabled(WEBHOOK), webhookEnabled('whk_BBBBBBBBBBBBBBBBBBBBBB')]);
    expect(model.webhookOfRoutine(ROUTINE)?.webhookId).toBe(WEBHOOK);
  });

  it('lists deliveries with the summary fields only (no payload, no digest)', () => {
    const model = modelWith([deliveryAccepted(2)]);
    expect(model.deliveriesOf(ROUTINE, 10)).toEqual([
      {
        deliveryId: `dlv_${'0'.repeat(21)}2`,
        runId: `run_${'0'.repeat(21)}2`,
        routineId: ROUTINE,
        receivedAt: '2024-05-01T12:00:02.000Z',
        triggerAccount: TRIGGER,
        contentType: 'text/plain',
        idempotencyKey: 'key-2',
      },
    ]);
  });

  it('lists runs with the summary fields only', () => {
    const model = modelWith([runCreated(1)]);
    expect(model.runsOf(ROUTINE, 10)).toEqual([
      {
        runId: `run_${'0'.repeat(21)}1`,
        routineId: ROUTINE,
        webhookId: WEBHOOK,
        deliveryId: `dlv_${'0'.repeat(21)}1`,
        triggerAccount: TRIGGER,
        status: 'created',
        createdAt: '2024-05-01T12:00:01.000Z',
      },
    ]);
  });

  it('ignores DispatchParked and unknown event types but still advances its position', () => {
    const model = new ServiceReadModel();
    model.apply(
      recorded(1, {
        type: 'DispatchParked',
        data: { sourceEventId: 'x', sourceStream: 's', sourceType: 't', error: 'e', parkedAt: T0 },
      }),
    );
    model.apply(recorded(2, { type: 'SomethingElse', data: {} }));
    expect(model.position).toEqual(at(2));
    expect(model.accounts().accounts.size).toBe(0);
  });

  it('ignores an event at or before the current position (redelivery)', () => {
    const model = new ServiceReadModel();
    model.apply(recorded(5, deliveryAccepted(1)));
    model.apply(recorded(5, deliveryAccepted(1)));
    model.apply(recorded(3, deliveryAccepted(2)));
    expect(model.deliveriesOf(ROUTINE, 10)).toHaveLength(1);
    expect(model.position).toEqual(at(5));
  });
});

describe('ServiceReadModel — waitFor', () => {
  it('resolves at once for undefined', async () => {
    await expect(new ServiceReadModel().waitFor(undefined)).resolves.toBeUndefined();
  });

  it('resolves at once for a position already folded', async () => {
    const model = modelWith([accountConnected, primary]);
    await expect(model.waitFor(at(1))).resolves.toBeUndefined();
    await expect(model.waitFor(at(2))).resolves.toBeUndefined();
  });

  it('waits until the position is folded, then resolves', async () => {
    const model = new ServiceReadModel();
    let done = false;
    const waiting = model.waitFor(at(2)).then(() => {
      done = true;
    });
    model.apply(recorded(1, accountConnected));
    await flush();
    expect(done).toBe(false);
    model.apply(recorded(2, primary));
    await waiting;
    expect(done).toBe(true);
    expect(model.accounts().primaryAccountId).toBe(ACCOUNT);
  });

  it('resolves when a later position is folded (positions need not be contiguous)', async () => {
    const model = new ServiceReadModel();
    const waiting = model.waitFor(at(7));
    model.apply(recorded(10, accountConnected));
    await expect(waiting).resolves.toBeUndefined();
  });

  it('releases each waiter at its own position', async () => {
    const model = new ServiceReadModel();
    const released: number[] = [];
    void model.waitFor(at(3)).then(() => released.push(3));
    void model.waitFor(at(1)).then(() => released.push(1));
    void model.waitFor(at(2)).then(() => released.push(2));
    model.apply(recorded(1, accountConnected));
    await flush();
    expect(released).toEqual([1]);
    model.apply(recorded(2, primary));
    await flush();
    expect(released).toEqual([1, 2]);
    model.apply(recorded(3, routineCreated()));
    await flush();
    expect(released).toEqual([1, 2, 3]);
  });

  it('compares the prepare part when commits are equal', async () => {
    const model = new ServiceReadModel();
    let done = false;
    void model.waitFor({ commit: 5n, prepare: 9n }).then(() => {
      done = true;
    });
    model.apply({ ...recorded(0, accountConnected), position: { commit: 5n, prepare: 8n } });
    await flush();
    expect(done).toBe(false);
    model.apply({ ...recorded(0, primary), position: { commit: 5n, prepare: 9n } });
    await flush();
    expect(done).toBe(true);
  });
});

describe('ServiceReadModel — listings', () => {
  it('lists deliveries newest first, bounded by the limit', () => {
    const model = modelWith([1, 2, 3, 4, 5].map((n) => deliveryAccepted(n)));
    expect(model.deliveriesOf(ROUTINE, 3).map((d) => d.deliveryId.slice(-1))).toEqual(['5', '4', '3']);
    expect(model.deliveriesOf(ROUTINE, 100).map((d) => d.deliveryId.slice(-1))).toEqual(['5', '4', '3', '2', '1']);
  });

  it('lists runs newest first, bounded by the limit', () => {
    const model = modelWith([1, 2, 3].map((n) => runCreated(n)));
    expect(model.runsOf(ROUTINE, 2).map((r) => r.runId.slice(-1))).toEqual(['3', '2']);
  });

  it('gives nothing for a limit of 0', () => {
    const model = modelWith([deliveryAccepted(1), runCreated(1)]);
    expect(model.deliveriesOf(ROUTINE, 0)).toEqual([]);
    expect(model.runsOf(ROUTINE, 0)).toEqual([]);
  });

  it('keeps listings per routine', () => {
    const model = modelWith([deliveryAccepted(1), deliveryAccepted(2, OTHER_ROUTINE), runCreated(3, OTHER_ROUTINE)]);
    expect(model.deliveriesOf(ROUTINE, 10).map((d) => d.deliveryId.slice(-1))).toEqual(['1']);
    expect(model.deliveriesOf(OTHER_ROUTINE, 10).map((d) => d.deliveryId.slice(-1))).toEqual(['2']);
    expect(model.runsOf(ROUTINE, 10)).toEqual([]);
    expect(model.runsOf(OTHER_ROUTINE, 10)).toHaveLength(1);
  });

  it('does not hand out its own lists: mutating a listing changes nothing', () => {
    const model = modelWith([deliveryAccepted(1), deliveryAccepted(2)]);
    model.deliveriesOf(ROUTINE, 10).pop();
    expect(model.deliveriesOf(ROUTINE, 10)).toHaveLength(2);
  });

  it(`keeps at most LISTING_RETENTION_PER_ROUTINE (${LISTING_RETENTION_PER_ROUTINE}) entries per routine, dropping the oldest`, () => {
    const model = new ServiceReadModel();
    const total = LISTING_RETENTION_PER_ROUTINE + 5;
    for (let n = 1; n <= total; n++) model.apply(recorded(n, deliveryAccepted(n)));
    const all = model.deliveriesOf(ROUTINE, Number.MAX_SAFE_INTEGER);
    expect(all).toHaveLength(LISTING_RETENTION_PER_ROUTINE);
    expect(all[0]?.deliveryId).toBe(`dlv_${String(total).padStart(22, '0')}`);
    expect(all[all.length - 1]?.deliveryId).toBe(`dlv_${String(6).padStart(22, '0')}`);
  });
});
