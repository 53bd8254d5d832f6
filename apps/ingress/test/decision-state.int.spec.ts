import { CONFIGURATION_PREFIXES } from '@wts/application';
import { ACCOUNT_CATALOG_STREAM, StreamCategories, Streams } from '@wts/contracts';
import { IngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { Json } from '../../../test/support/ingress-http.client';
import { RecordingEventStore, type RecordedCall } from '../../../test/support/recording-event-store';

const TRAFFIC_STREAMS = /^(delivery|run|parked)-/;
/** The ingress folds the configuration and, as the one process that verifies signatures, the sealed signing secrets. */
const INGRESS_PREFIXES = [...CONFIGURATION_PREFIXES, StreamCategories.signingSecret];

/**
 * What the ingress reads, watched from outside (a recording store): its decision state is the
 * configuration alone — accounts, routines, webhooks — built at start from those streams and
 * confirmed per request by one look at the heads of the streams the decision reads. Neither
 * start-up nor a request reads a delivery or a run, so neither grows with traffic history.
 */
describe('decision state from configuration only', () => {
  const PRIOR_DELIVERIES = 300;
  let seed: IngressTestApp;
  let other: IngressTestApp;
  let watched: IngressTestApp;
  let recorder: RecordingEventStore;
  let hook: WebhookFixture;

  beforeAll(async () => {
    seed = await IngressTestApp.start({ WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000' });
    hook = await seed.setupWebhook();
    await seed.startDispatcher();
    for (let i = 0; i < PRIOR_DELIVERIES; i += 1)
      expect((await seed.deliver(hook, { body: JSON.stringify({ data: { i } }) })).status).toBe(202);
    await seed.waitForRuns(hook.routineId, PRIOR_DELIVERIES);
    other = await IngressTestApp.start({ WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000' }, { dataDir: seed.dataDir });
    watched = await IngressTestApp.start(
      { WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000' },
      { dataDir: seed.dataDir },
      (store) => (recorder = new RecordingEventStore(store)),
    );
  }, 60_000);

  afterAll(async () => {
    await watched?.close();
    await other?.close();
    await seed?.close();
  });

  const readsOfTraffic = (calls: readonly RecordedCall[]): RecordedCall[] =>
    calls.filter(
      (call) =>
        (call.call === 'readStream' && TRAFFIC_STREAMS.test(call.streamId)) || (call.call === 'readAll' && call.prefixes === undefined),
    );

  it('starts from the configuration streams alone: no delivery or run of the history is read', () => {
    expect(readsOfTraffic(recorder.calls)).toEqual([]);
    const configuration = recorder.delivered.get(INGRESS_PREFIXES.join(',')) ?? [];
    expect(configuration).toContain(Streams.webhook(hook.webhookId));
    // The ingress opens no subscription that sees traffic (the read models are projected by the run-dispatcher).
    for (const streams of recorder.delivered.values()) expect(streams.filter((stream) => TRAFFIC_STREAMS.test(stream))).toEqual([]);
    expect(recorder.calls.filter((call) => call.call === 'subscribeToAll')).toEqual([
      { call: 'subscribeToAll', prefixes: INGRESS_PREFIXES },
    ]);
  });

  it('decides a delivery with one look at three stream heads and one append, however many deliveries the store holds', async () => {
    recorder.reset();
    const accepted = await watched.deliver(hook);
    expect(accepted.status).toBe(202);
    const delivery = `delivery-${(accepted.json as Json).delivery_id}`;
    expect(recorder.calls).toEqual([
      { call: 'streamHeads', streamIds: [Streams.webhook(hook.webhookId), ACCOUNT_CATALOG_STREAM, Streams.routine(hook.routineId)] },
      { call: 'append', streamId: delivery },
    ]);
  });

  it('looks at as many stream heads for an unknown webhook as for a known one, and reads nothing else', async () => {
    recorder.reset();
    expect((await watched.deliver({ webhookId: 'whk_UnknownUnknownUnknown0', secret: hook.secret })).status).toBe(404);
    expect(recorder.calls).toHaveLength(1);
    const [only] = recorder.calls;
    expect(only).toMatchObject({
      call: 'streamHeads',
      streamIds: expect.arrayContaining([Streams.webhook('whk_UnknownUnknownUnknown0'), ACCOUNT_CATALOG_STREAM]),
    });
    expect(only.call === 'streamHeads' ? only.streamIds : []).toHaveLength(3);
  });

  it('reads a change made through another replica from its own stream, and nothing else', async () => {
    const rotated = await other.adminOk('POST', `/admin/routines/${hook.routineId}/webhook/rotate`, undefined, 200);
    recorder.reset();
    expect((await watched.deliver(hook)).status).toBe(404);
    expect((await watched.deliver({ webhookId: hook.webhookId, secret: rotated.secret as string })).status).toBe(202);
    expect(readsOfTraffic(recorder.calls)).toEqual([]);
    const reads = recorder.calls.filter((call) => call.call === 'readStream');
    // Read from the stream directly, unless the subscription folded it first: at most once, never from the start.
    expect(reads.length).toBeLessThanOrEqual(1);
    for (const read of reads) expect(read).toMatchObject({ streamId: Streams.webhook(hook.webhookId), fromRevision: expect.any(BigInt) });
    for (const read of reads) expect((read as { fromRevision: bigint }).fromRevision).toBeGreaterThan(0n);
  });
});
