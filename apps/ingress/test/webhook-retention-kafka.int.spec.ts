import { KafkaRunsWindowSource, ensureTopics } from '@wts/messaging';
import { IngressTestApp } from '../../../test/support/ingress-test-app';
import { useFreshTopics } from '../../../test/support/kafka-topics.kit';

type Json = Record<string, unknown>;

/** 30 days: the contract's 7-day retention fits, with a 1-day segment: copies stay up to 8 days + 5 minutes. */
const PAYLOAD_RETENTION_SECONDS = 30 * 86_400;

/**
 * With Kafka, a webhook retention shorter than routines.runs.v1 keeps copies of payloads is refused
 * where it is set (enable body and PATCH: 400 validation_failed naming the topic's window). The
 * ingress reads the window of a real topic (the dispatcher's relay created it) on the test broker;
 * the ingress's own relay is not started (the harness has no checkpoint store for it).
 */
describe('webhook payload retention against the Kafka runs topic (ingress, real broker)', () => {
  const fresh = useFreshTopics('webhook-retention', 'all');
  let t: IngressTestApp;

  beforeAll(async () => {
    const { brokers, kafka, topics } = fresh;
    // As the dispatcher's relay creates it at start.
    await ensureTopics(kafka, topics, {}, { roles: ['routineRuns'], payloadRetentionSeconds: PAYLOAD_RETENTION_SECONDS });
    const runsWindow = new KafkaRunsWindowSource({ connection: { brokers }, payloadRetentionSeconds: PAYLOAD_RETENTION_SECONDS, topics });
    t = await IngressTestApp.start(
      { PAYLOAD_RETENTION_SECONDS: String(PAYLOAD_RETENTION_SECONDS) },
      undefined,
      undefined,
      {},
      { runsWindow },
    );
    // The app reads the window at bootstrap; this waits for that same read.
    await runsWindow.learn();
  });

  afterAll(async () => {
    await t?.close();
  });

  const patch = (routineId: string, body: unknown): ReturnType<IngressTestApp['admin']> =>
    t.admin('PATCH', `/admin/routines/${routineId}/webhook`, body);

  it('PATCH refuses fewer days than the topic keeps copies (400 naming its window), records nothing, and takes enough days', async () => {
    const hook = await t.setupWebhook();
    const refused = await patch(hook.routineId, { payload_retention_days: 8 });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'validation_failed' });
    const text = JSON.stringify(refused.json);
    expect(text).toContain(`payload_retention_days 8 is shorter than ${fresh.topics.routineRuns} keeps copies of payloads`);
    expect(text).toContain('retention.ms 604800000 + segment.ms 86400000 + retention check 300000 ms = 8.00 days');
    expect(text).toContain('at least 9 days');
    const recorded = (await t.allEvents()).filter((event) => event.type === 'WebhookRetentionChanged');
    expect(recorded).toHaveLength(0);

    const taken = await patch(hook.routineId, { payload_retention_days: 9 });
    expect(taken.status).toBe(200);
    expect(taken.json).toMatchObject({ payload_retention_days: 9 });
    expect((await patch(hook.routineId, { payload_retention_days: null })).status).toBe(200);
  });

  it('enable refuses the same, before anything is recorded', async () => {
    const account = await t.createAccount();
    const routine = await t.createRoutine({ account_scope: [account.id] });
    const enablePath = `/admin/routines/${routine.id as string}/webhook/enable`;
    const refused = await t.admin('POST', enablePath, {
      default_account: account.email,
      account_override_allowed: false,
      payload_retention_days: 1,
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.json)).toContain('payload_retention_days 1 is shorter than');
    expect(((await t.adminOk('GET', `/admin/routines/${routine.id as string}/webhook`, undefined, 200)) as Json).state).toBe(
      'not_configured',
    );
    const enabled = await t.enableWebhook(routine.id as string, account.email, false, { payload_retention_days: 30 });
    expect(enabled).toMatchObject({ state: 'enabled', payload_retention_days: 30 });
  });
});
