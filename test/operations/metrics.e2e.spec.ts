import { SqliteEventStore } from '@wts/event-store';
import { KafkaHeaders, KafkaTopics } from '@wts/messaging';
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { kafkaScriptOrThrow } from '../support/kafka-broker';
import { clientAs } from '../support/kafka-secured-broker';
import { MessageCollector, testKafka, type CollectedMessage } from '../support/kafka-test-kit';
import { scrape, valueOf, type Sample } from '../support/metrics-scrape';
import { startServicePair, type ServicePair, type TestBroker } from '../support/service-pair.harness';
import { eventually } from '@wts/testing';
import { appendDeliveryOutsideScope } from '../support/undispatchable-delivery';

const RATE_LIMIT = 20;

/**
 * Traffic through both services as processes from dist/ (the production shape on one machine: a
 * broker of the test's own with SASL/SCRAM and the deployment's ACLs, the embedded store), and GET /metrics of each: every metric the
 * README lists moves when what it counts happens — including the lags, made to grow by taking the
 * broker away (relay), locking the read-model database (projector) and stalling a partition
 * (consumer), and to fall back once the cause is gone.
 */
describe('metrics: every metric moves under traffic', () => {
  let pair: ServicePair & { readonly broker: TestBroker };
  let store: SqliteEventStore;

  beforeAll(async () => {
    pair = await startServicePair('metrics', { kafka: true, env: { WEBHOOK_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) } });
    store = SqliteEventStore.open(join(pair.dataDir, 'events.sqlite'));
  }, 240_000);

  afterAll(async () => {
    await store?.close();
    await pair?.stop();
  }, 60_000);

  const post = (url: string, secret: string, body: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(url, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers }, body });
  const eventuallyMetrics = async (
    url: string,
    what: string,
    check: (samples: Sample[]) => boolean,
    timeoutMs = 30_000,
  ): Promise<Sample[]> => {
    let last: Sample[] = [];
    await eventually(async () => check((last = await scrape(url))), timeoutMs, what).catch((error: unknown) => {
      throw new Error(
        `${String(error)}\nlast scrape:\n${last
          .filter((s) => s.name.startsWith('wts_'))
          .map((s) => `${s.name}${JSON.stringify(s.labels)} ${s.value}`)
          .join('\n')}\n--- ingress\n${pair.ingress.tail(20)}\n--- dispatcher\n${pair.dispatcher.tail(20)}`,
      );
    });
    return last;
  };

  it('serves the process and Node.js defaults on both services', async () => {
    for (const url of [pair.ingressUrl, pair.dispatcherUrl]) {
      const samples = await scrape(url);
      expect(valueOf(samples, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(valueOf(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    }
  });

  it('ingress: accepted, replays, rejections by code (one 404 code for every cause), rate-limit decisions, acceptance latency, group commits', async () => {
    const hook = await pair.admin.setUpWebhook('metrics@example.com');
    const before = await scrape(pair.ingressUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(hook.url, hook.secret, JSON.stringify({ data: { i } }))).status);
    statuses.push((await post(hook.url, hook.secret, '{"data":"once"}', { 'x-service-idempotency-key': 'k-1' })).status);
    statuses.push((await post(hook.url, hook.secret, '{"data":"once"}', { 'x-service-idempotency-key': 'k-1' })).status);
    statuses.push((await post(hook.url, 'whsec_wrong', '{}')).status);
    statuses.push((await post(`${pair.ingressUrl}/workflow-webhooks/whk_AAAAAAAAAAAAAAAAAAAAAA`, hook.secret, '{}')).status);
    statuses.push(
      (
        await fetch(hook.url, {
          method: 'POST',
          headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/xml' },
          body: '<x/>',
        })
      ).status,
    );
    statuses.push((await post(hook.url, hook.secret, '{not json')).status);
    // The webhook's window is now spent except what is left: exhaust it.
    for (let i = 0; i < RATE_LIMIT; i++) statuses.push((await post(hook.url, hook.secret, JSON.stringify({ data: { over: i } }))).status);
    expect(statuses.slice(0, 11)).toEqual([202, 202, 202, 202, 202, 202, 202, 404, 404, 415, 400]);
    const accepted = statuses.filter((status) => status === 202).length - 1;
    const limited = statuses.filter((status) => status === 429).length;
    expect(limited).toBeGreaterThan(0);

    const after = await scrape(pair.ingressUrl);
    const delta = (name: string, labels: Record<string, string> = {}): number =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('wts_deliveries_accepted_total')).toBe(accepted);
    expect(delta('wts_idempotent_replays_total')).toBe(1);
    expect(delta('wts_delivery_rejections_total', { code: 'webhook_not_found' })).toBe(2);
    expect(delta('wts_delivery_rejections_total', { code: 'unsupported_media_type' })).toBe(1);
    expect(
      delta('wts_delivery_rejections_total', { code: 'invalid_json' }) +
        delta('wts_delivery_rejections_total', { code: 'validation_failed' }),
    ).toBeGreaterThanOrEqual(1);
    expect(delta('wts_delivery_rejections_total', { code: 'rate_limited' })).toBe(limited);
    // The one 404 is one label value: a wrong secret and an unknown id are not told apart.
    const notFoundCodes = after.filter(
      (s) => s.name === 'wts_delivery_rejections_total' && s.value > 0 && /not_found|secret|unknown|disabled/.test(s.labels.code ?? ''),
    );
    expect(notFoundCodes.map((s) => s.labels.code)).toEqual(['webhook_not_found']);
    expect(delta('wts_rate_limit_decisions_total', { decision: 'limited' })).toBe(limited);
    expect(delta('wts_rate_limit_decisions_total', { decision: 'allowed' })).toBeGreaterThanOrEqual(accepted + 1);
    expect(delta('wts_delivery_acceptance_seconds_count')).toBe(accepted);
    expect(delta('wts_delivery_acceptance_seconds_sum')).toBeGreaterThan(0);
    expect(delta('wts_event_store_append_batch_size_count')).toBeGreaterThan(0);
    expect(delta('wts_event_store_append_batch_size_sum')).toBeGreaterThanOrEqual(accepted);
    expect(delta('wts_event_store_commit_seconds_count')).toBeGreaterThan(0);

    // Each accepted delivery becomes a run, counted by the dispatcher.
    await eventuallyMetrics(
      pair.dispatcherUrl,
      'runs created',
      (samples) => valueOf(samples, 'wts_runs_total', { outcome: 'created' }) >= accepted,
    );
  }, 60_000);

  it('dispatcher: a parked delivery, a redelivered message (already created), a dead letter', async () => {
    const hook = await pair.admin.setUpWebhook('parked@example.com');
    const webhookId = hook.url.slice(hook.url.lastIndexOf('/') + 1);
    await appendDeliveryOutsideScope(store, { webhookId, routineId: hook.routineId });
    await eventuallyMetrics(
      pair.dispatcherUrl,
      'a parked run',
      (samples) => valueOf(samples, 'wts_runs_total', { outcome: 'parked' }) >= 1,
    );

    // A delivery with its run: the message to deliver again.
    const accepted = (await (await post(hook.url, hook.secret, '{"data":"twice"}')).json()) as { delivery_id: string };
    await eventually(
      async () => (await pair.admin.call('GET', `/admin/runs/${(accepted as { run_id?: string }).run_id ?? ''}`)).status === 200,
      30_000,
      'the run',
    );
    const kafka = testKafka(pair.broker.secured.adminBrokers.split(','), 'metrics-test');
    const collector = await new MessageCollector(
      kafka,
      [KafkaTopics.webhookEvents],
      `metrics-test-${randomBytes(4).toString('hex')}`,
    ).start();
    let delivered: CollectedMessage | undefined;
    try {
      await eventually(
        async () =>
          (delivered = collector.messages.find(
            (m) =>
              m.headers[KafkaHeaders.eventType] === 'DeliveryAccepted' && (m.value?.toString('utf8') ?? '').includes(accepted.delivery_id),
          )) !== undefined,
        30_000,
        'a DeliveryAccepted message',
      );
    } finally {
      await collector.stop();
    }
    if (!delivered) throw new Error('unreachable');
    // Whoever may write the topic (here, with the ingress relay's own credentials) still makes no run the store does not back.
    const producer = clientAs(pair.broker.secured, 'ingress').producer();
    await producer.connect();
    try {
      // The same message again (a redelivery): the run exists already.
      await producer.send({
        topic: KafkaTopics.webhookEvents,
        messages: [{ key: delivered.key, value: delivered.value, headers: delivered.headers }],
      });
      await eventuallyMetrics(
        pair.dispatcherUrl,
        'an already-created run',
        (samples) => valueOf(samples, 'wts_runs_total', { outcome: 'already_created' }) >= 1,
      );
      // A message nothing can decode: parked on the dead-letter topic.
      await producer.send({
        topic: KafkaTopics.webhookEvents,
        messages: [
          {
            key: 'poison',
            value: 'not json',
            headers: { [KafkaHeaders.eventType]: 'DeliveryAccepted', [KafkaHeaders.schemaVersion]: '1' },
          },
        ],
      });
      await eventuallyMetrics(pair.dispatcherUrl, 'a dead letter', (samples) => valueOf(samples, 'wts_dead_letters_total') >= 1);
      // The same message with another payload: the store holds it otherwise — no run, counted.
      const forged = { ...(JSON.parse(delivered.value?.toString('utf8') ?? '{}') as object), payload: { format: 'text', text: 'forged' } };
      await producer.send({
        topic: KafkaTopics.webhookEvents,
        messages: [{ key: delivered.key, value: JSON.stringify(forged), headers: delivered.headers }],
      });
      await eventuallyMetrics(
        pair.dispatcherUrl,
        'an unverified notification',
        (samples) => valueOf(samples, 'wts_unverified_notifications_total') >= 1,
      );
    } finally {
      await producer.disconnect();
    }
  }, 90_000);

  it('relay lag and checkpoint age grow while the broker is down (or the relay says it no longer leads), and fall back once it returns', async () => {
    const hook = await pair.admin.setUpWebhook('relay@example.com');
    await eventuallyMetrics(
      pair.ingressUrl,
      'the relay caught up',
      (samples) => valueOf(samples, 'wts_relay_lag_events') === 0 && valueOf(samples, 'wts_relay_leading') === 1,
    );
    await kafkaScriptOrThrow('kill', pair.broker.env);
    try {
      for (let i = 0; i < 3; i++) expect((await post(hook.url, hook.secret, JSON.stringify({ data: { whileDown: i } }))).status).toBe(202);
      // While it still leads, the events it cannot send are its lag; once the outage has deposed it
      // (its group's consumer gives up on a dead broker), the leadership gauge says nothing forwards.
      const lagging = await eventuallyMetrics(
        pair.ingressUrl,
        'relay lag, or the relay deposed',
        (samples) =>
          (valueOf(samples, 'wts_relay_lag_events') >= 3 && valueOf(samples, 'wts_relay_checkpoint_age_seconds') > 0.5) ||
          valueOf(samples, 'wts_relay_leading') === 0,
      );
      if (valueOf(lagging, 'wts_relay_leading') === 1) expect(valueOf(lagging, 'wts_relay_lag_seconds')).toBeGreaterThan(0);
    } finally {
      await kafkaScriptOrThrow('start', pair.broker.env);
    }
    const caughtUp = await eventuallyMetrics(
      pair.ingressUrl,
      'the relay to lead again and catch up',
      (samples) => valueOf(samples, 'wts_relay_leading') === 1 && valueOf(samples, 'wts_relay_lag_events') === 0,
      90_000,
    );
    expect(valueOf(caughtUp, 'wts_relay_lag_seconds')).toBe(0);
    expect(valueOf(caughtUp, 'wts_relay_checkpoint_age_seconds')).toBe(0);
  }, 180_000);

  it('projector lag grows while the read-model database is locked, and falls back once it is free', async () => {
    const hook = await pair.admin.setUpWebhook('projector@example.com');
    await eventuallyMetrics(
      pair.dispatcherUrl,
      'the projector caught up',
      (samples) => valueOf(samples, 'wts_projector_lag_events') === 0,
      60_000,
    );
    const readModels = new Database(join(pair.dataDir, 'readmodels.sqlite'));
    readModels.exec('BEGIN EXCLUSIVE');
    try {
      for (let i = 0; i < 2; i++) expect((await post(hook.url, hook.secret, JSON.stringify({ data: { locked: i } }))).status).toBe(202);
      const lagging = await eventuallyMetrics(
        pair.dispatcherUrl,
        'projector lag',
        (samples) => valueOf(samples, 'wts_projector_lag_events') >= 2 && valueOf(samples, 'wts_projector_lag_seconds') > 0,
      );
      expect(valueOf(lagging, 'wts_projector_lag_seconds')).toBeGreaterThan(0);
    } finally {
      readModels.exec('ROLLBACK');
      readModels.close();
    }
    await eventuallyMetrics(
      pair.dispatcherUrl,
      'the projector to catch up',
      (samples) => valueOf(samples, 'wts_projector_lag_events') === 0 && valueOf(samples, 'wts_projector_lag_seconds') === 0,
      60_000,
    );
  }, 120_000);

  it('consumer lag per partition: a partition held by a message of a newer schema shows what waits behind it', async () => {
    const kafka = testKafka(pair.broker.secured.adminBrokers.split(','), 'metrics-test-lag');
    const producer = kafka.producer();
    await producer.connect();
    try {
      const stall = {
        key: 'stalled-partition',
        headers: { [KafkaHeaders.eventType]: 'DeliveryAccepted', [KafkaHeaders.schemaVersion]: '99' },
      };
      await producer.send({ topic: KafkaTopics.webhookEvents, messages: [{ ...stall, value: '{}' }] });
      await producer.send({ topic: KafkaTopics.webhookEvents, messages: [1, 2, 3].map(() => ({ ...stall, value: '{}' })) });
    } finally {
      await producer.disconnect();
    }
    const samples = await eventuallyMetrics(pair.dispatcherUrl, 'consumer lag', (s) =>
      s.some((sample) => sample.name === 'wts_consumer_lag_messages' && sample.value >= 4),
    );
    const partitions = samples.filter((sample) => sample.name === 'wts_consumer_lag_messages');
    expect(
      partitions.every((sample) => sample.labels.topic === KafkaTopics.webhookEvents && /^\d+$/.test(sample.labels.partition ?? '')),
    ).toBe(true);
  }, 60_000);

  it("no line either service wrote — the broker's outage and refusals included — holds its Kafka password", () => {
    const written = [...pair.ingress.output, ...pair.dispatcher.output].join('');
    expect(written.length).toBeGreaterThan(0);
    for (const user of ['ingress', 'dispatcher'] as const) expect(written).not.toContain(pair.broker.secured.passwords[user]);
  });
});
