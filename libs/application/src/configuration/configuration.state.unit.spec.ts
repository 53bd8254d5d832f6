import { ACCOUNT_CATALOG_STREAM, Streams, type ServiceEvent } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';
import { ConfigurationState } from './configuration.state';
import { recordedAt } from '../../../../test/support/recorded-event.fixtures';

const ROUTINE = 'rtn_AAAAAAAAAAAAAAAAAAAAAA';
const OTHER_ROUTINE = 'rtn_BBBBBBBBBBBBBBBBBBBBBB';
const WEBHOOK = 'whk_AAAAAAAAAAAAAAAAAAAAAA';
const ACCOUNT = 'acc_AAAAAAAAAAAAAAAAAAAAAA';
const T0 = '2024-05-01T12:00:00.000Z';

let position = 0;
/** A recorded event of `stream` at `revision`, each one later in $all than the one before. */
function at(streamId: string, revision: number, event: ServiceEvent): RecordedEvent {
  position += 1;
  return recordedAt(position, streamId, revision, event, T0);
}

const routineCreated = (routineId: string, instructions = 'File it.'): ServiceEvent => ({
  type: 'RoutineCreated',
  data: { routineId, name: 'Triage', instructions, tools: [], mode: 'supervised', accountScope: [ACCOUNT], createdAt: T0 },
});
const routineUpdated = (routineId: string, changes: object): ServiceEvent => ({
  type: 'RoutineUpdated',
  data: { routineId, changes, updatedAt: T0 },
});
const webhookEnabled: ServiceEvent = {
  type: 'WebhookEnabled',
  data: {
    webhookId: WEBHOOK,
    routineId: ROUTINE,
    secretDigest: 'a'.repeat(64),
    defaultAccount: { accountId: ACCOUNT, email: 'ops@example.com' },
    accountOverrideAllowed: false,
    enabledAt: T0,
  },
};
const secretRotated: ServiceEvent = { type: 'SecretRotated', data: { webhookId: WEBHOOK, secretDigest: 'b'.repeat(64), rotatedAt: T0 } };
const webhookDisabled: ServiceEvent = { type: 'WebhookDisabled', data: { webhookId: WEBHOOK, disabledAt: T0 } };
const accountConnected: ServiceEvent = {
  type: 'AccountConnected',
  data: { accountId: ACCOUNT, email: 'ops@example.com', aliases: [], connectedAt: T0 },
};

describe('ConfigurationState', () => {
  it('given nothing, then nothing is known and every stream is at revision -1', () => {
    const state = new ConfigurationState();
    expect(state.webhook(WEBHOOK)).toBeUndefined();
    expect(state.routine(ROUTINE)).toBeUndefined();
    expect(state.revisionOf(Streams.webhook(WEBHOOK))).toBe(-1n);
    expect(state.revisionOf(ACCOUNT_CATALOG_STREAM)).toBe(-1n);
    expect(state.routinesNewestFirst()).toEqual([]);
  });

  it('given a webhook stream folded in order, then the webhook is as its last event left it', () => {
    const state = new ConfigurationState();
    expect(state.apply(at(Streams.webhook(WEBHOOK), 0, webhookEnabled))).toBe('applied');
    expect(state.apply(at(Streams.webhook(WEBHOOK), 1, secretRotated))).toBe('applied');
    expect(state.webhook(WEBHOOK)).toMatchObject({ status: 'enabled', secretDigest: 'b'.repeat(64) });
    expect(state.apply(at(Streams.webhook(WEBHOOK), 2, webhookDisabled))).toBe('applied');
    expect(state.webhook(WEBHOOK)?.status).toBe('disabled');
    expect(state.revisionOf(Streams.webhook(WEBHOOK))).toBe(2n);
  });

  it('given an event seen again (subscription after a direct read), then it is known and folded once', () => {
    const state = new ConfigurationState();
    const enabled = at(Streams.webhook(WEBHOOK), 0, webhookEnabled);
    const rotated = at(Streams.webhook(WEBHOOK), 1, secretRotated);
    state.apply(enabled);
    state.apply(rotated);
    expect(state.apply(enabled)).toBe('known');
    expect(state.apply(rotated)).toBe('known');
    expect(state.webhook(WEBHOOK)?.secretDigest).toBe('b'.repeat(64));
  });

  it('given a revision after a missing one, then it is a gap and nothing changes', () => {
    const state = new ConfigurationState();
    state.apply(at(Streams.webhook(WEBHOOK), 0, webhookEnabled));
    expect(state.apply(at(Streams.webhook(WEBHOOK), 2, webhookDisabled))).toBe('gap');
    expect(state.webhook(WEBHOOK)?.status).toBe('enabled');
    expect(state.revisionOf(Streams.webhook(WEBHOOK))).toBe(0n);
  });

  it('given deliveries, runs or parks, then they are ignored: decisions never hold traffic', () => {
    const state = new ConfigurationState();
    const delivery = at('delivery-dlv_A', 0, {
      type: 'DispatchParked',
      data: { sourceEventId: 'x', sourceStream: 's', sourceType: 't', error: 'e', parkedAt: T0 },
    });
    expect(state.apply(delivery)).toBe('ignored');
    expect(state.apply({ ...delivery, streamId: 'run-run_A' })).toBe('ignored');
    expect(state.revisionOf('delivery-dlv_A')).toBe(-1n);
  });

  it("given the webhook id claimed for a routine, then the routine's webhook is that one, enabled or not yet", () => {
    const state = new ConfigurationState();
    state.apply(
      at(Streams.webhookSlot(ROUTINE), 0, { type: 'WebhookIdAssigned', data: { routineId: ROUTINE, webhookId: WEBHOOK, assignedAt: T0 } }),
    );
    expect(state.webhookIdOfRoutine(ROUTINE)).toBe(WEBHOOK);
    expect(state.webhookOfRoutine(ROUTINE)).toBeUndefined();
    state.apply(at(Streams.webhook(WEBHOOK), 0, webhookEnabled));
    expect(state.webhookOfRoutine(ROUTINE)?.webhookId).toBe(WEBHOOK);
  });

  it('given a store from before webhook claims, then the first webhook enabled for a routine is its webhook', () => {
    const state = new ConfigurationState();
    state.apply(at(Streams.webhook(WEBHOOK), 0, webhookEnabled));
    expect(state.webhookIdOfRoutine(ROUTINE)).toBe(WEBHOOK);
  });

  it('given a webhook enabled, then its routine is the decoy an unknown id looks at, for good', () => {
    const state = new ConfigurationState();
    state.apply(at(Streams.routine(ROUTINE), 0, routineCreated(ROUTINE)));
    // A routine alone is not enough: only a routine that had a webhook is one a known id looks at.
    expect(state.decoyRoutineId()).toBeUndefined();
    state.apply(at(Streams.webhook(WEBHOOK), 0, webhookEnabled));
    expect(state.decoyRoutineId()).toBe(ROUTINE);
    const other = 'whk_BBBBBBBBBBBBBBBBBBBBBB';
    state.apply(at(Streams.routine(OTHER_ROUTINE), 0, routineCreated(OTHER_ROUTINE)));
    state.apply(
      at(Streams.webhook(other), 0, {
        ...webhookEnabled,
        data: { ...webhookEnabled.data, webhookId: other, routineId: OTHER_ROUTINE },
      } as ServiceEvent),
    );
    state.apply(at(Streams.webhook(WEBHOOK), 1, webhookDisabled));
    expect(state.decoyRoutineId()).toBe(ROUTINE);
  });

  it('given routines, then they are listed newest first and sized as a run records them', () => {
    const state = new ConfigurationState();
    state.apply(at(Streams.routine(ROUTINE), 0, routineCreated(ROUTINE)));
    state.apply(at(Streams.routine(OTHER_ROUTINE), 0, routineCreated(OTHER_ROUTINE, 'x'.repeat(1000))));
    state.apply(at(Streams.routine(ROUTINE), 1, routineUpdated(ROUTINE, { name: 'Renamed' })));
    expect(state.routinesNewestFirst().map((routine) => routine.routineId)).toEqual([OTHER_ROUTINE, ROUTINE]);
    expect(state.routine(ROUTINE)?.name).toBe('Renamed');
    const snapshot = { name: 'Triage', tools: [], instructions: 'x'.repeat(1000), mode: 'supervised' };
    expect(state.routineSnapshotBytes(OTHER_ROUTINE)).toBe(Buffer.byteLength(JSON.stringify(snapshot)));
    expect(state.routineSnapshotBytes('rtn_unknown')).toBe(0);
  });

  it('given the account catalog, then its accounts are known', () => {
    const state = new ConfigurationState();
    expect(state.apply(at(ACCOUNT_CATALOG_STREAM, 0, accountConnected))).toBe('applied');
    expect(state.accounts().accounts.get(ACCOUNT)?.email).toBe('ops@example.com');
    expect(state.revisionOf(ACCOUNT_CATALOG_STREAM)).toBe(0n);
  });

  it('given holds and releases, then the latest hold start is kept (also after its release) and only held webhooks are listed', () => {
    const state = new ConfigurationState();
    const stream = Streams.webhook(WEBHOOK);
    const held = (heldAt: string, releaseAt: string | null): ServiceEvent => ({
      type: 'WebhookHeld',
      data: { webhookId: WEBHOOK, heldAt, heldBy: 'ada', releaseAt },
    });
    const released: ServiceEvent = {
      type: 'WebhookReleased',
      data: { webhookId: WEBHOOK, releasedAt: T0, releasedBy: 'ada', expired: false },
    };
    state.apply(at(stream, 0, webhookEnabled));
    expect(state.holdRangeOf(WEBHOOK)?.after).toBeUndefined();
    expect(state.heldWebhooks()).toEqual([]);
    const first = at(stream, 1, held(T0, null));
    state.apply(first);
    expect(state.holdRangeOf(WEBHOOK)?.after).toEqual(first.position);
    // Holding again (a new expiry) keeps where the hold began.
    state.apply(at(stream, 2, held(T0, '2024-05-01T13:00:00.000Z')));
    expect(state.holdRangeOf(WEBHOOK)?.after).toEqual(first.position);
    expect(state.heldWebhooks().map((webhook) => webhook.hold?.releaseAt)).toEqual(['2024-05-01T13:00:00.000Z']);
    state.apply(at(stream, 3, released));
    expect(state.heldWebhooks()).toEqual([]);
    expect(state.holdRangeOf(WEBHOOK)?.after).toEqual(first.position);
    const second = at(stream, 4, held(T0, null));
    state.apply(second);
    expect(state.holdRangeOf(WEBHOOK)?.after).toEqual(second.position);
  });
});
