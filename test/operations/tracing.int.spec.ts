import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DispatchDeliveryUseCase, DispatchNotifiedDeliveryUseCase, ParkDispatchUseCase, systemClock } from '@wts/application';
import { loadConfig } from '@wts/config';
import { Streams } from '@wts/contracts';
import { SqliteEventStore, type EventStore } from '@wts/event-store';
import {
  DEFAULT_CONSUMER_TUNING,
  DeliveryAcceptedMessage,
  KafkaRelaySupervisor,
  Relays,
  WebhookEventsConsumer,
  createKafkaClient,
  ensureTopics,
  kafkaTopicNames,
  silentMessagingLogger,
} from '@wts/messaging';
import { startTracing, tracedDispatch, tracedEventStore, type TracingHandle } from '@wts/observability';
import { MemoryRateLimiter, openReadModelStore } from '@wts/platform';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIngressApp } from '../../apps/ingress/src/ingress.factory';
import { AdminClient } from '../support/admin-client';
import { kafkaBrokers, uniqueName } from '../support/kafka-broker';
import { startStoreDispatcher } from '../support/in-process-dispatcher';
import { deleteTopics, testKafka } from '../support/kafka-test-kit';
import { eventually } from '@wts/testing';

const ADMIN_TOKEN = 'admin-token-for-tracing-tests-0123456789';
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

/**
 * One delivery is one trace, from the caller's traceparent through the HTTP request, the append of
 * DeliveryAccepted (its metadata carries the append span), the Kafka message's header (the publish
 * span) and the dispatch to the append of RunCreated — checked span by span with an in-memory
 * exporter, in the embedded shape (the dispatcher follows the store) and the Kafka shape (the
 * relay publishes, a consumer dispatches), on the real store and a real broker.
 */
describe('traces: one delivery, one trace', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: TracingHandle | undefined;
  let dir: string;
  let raw: SqliteEventStore;
  let store: EventStore;
  let app: NestFastifyApplication;
  let admin: AdminClient;
  const stops: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    tracing = await startTracing({ requested: false, serviceName: 'tracing-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
  });

  afterAll(async () => {
    await tracing?.shutdown();
  });

  beforeEach(async () => {
    exporter.reset();
    dir = mkdtempSync(join(tmpdir(), 'wts-tracing-'));
    const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', ADMIN_TOKEN });
    raw = SqliteEventStore.open(join(dir, 'events.sqlite'));
    store = tracedEventStore(raw);
    const { readModels } = await openReadModelStore(config);
    app = await createIngressApp({ config, adminToken: ADMIN_TOKEN, store, readModels, rateLimiter: new MemoryRateLimiter(1000) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    admin = new AdminClient(`http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`, ADMIN_TOKEN);
  });

  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The run-dispatcher's store worker in process, its dispatches traced; stopped after the test. */
  async function startTracedDispatcher(): Promise<void> {
    const worker = await startStoreDispatcher(store, raw, {
      dispatch: tracedDispatch(new DispatchDeliveryUseCase(store, systemClock, new ParkDispatchUseCase(store, systemClock))),
    });
    stops.push(() => worker.stop());
  }

  /** Sets a webhook up for `email`, forgets the spans so far, and posts `body` to it continuing the caller's trace. */
  async function postWithCallerTrace(email: string, body: string): Promise<Response> {
    const hook = await admin.setUpWebhook(email);
    exporter.reset();
    return fetch(`${admin.baseUrl}${new URL(hook.url).pathname}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${hook.secret}`,
        'content-type': 'application/json',
        traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
      },
      body,
    });
  }

  /** Posts one delivery continuing the caller's trace; resolves once its run exists and the run's append span ended. */
  async function deliverOne(): Promise<{ spans: ReadableSpan[]; deliveryId: string; runId: string }> {
    const response = await postWithCallerTrace('trace@example.com', '{"data":{"alert":"disk full"}}');
    expect(response.status).toBe(202);
    const { delivery_id: deliveryId, run_id: runId } = (await response.json()) as { delivery_id: string; run_id: string };
    await eventually(async () => (await raw.readStream(Streams.run(runId))).length > 0, 30_000, 'the run');
    await eventually(
      async () => exporter.getFinishedSpans().some((span) => span.name === 'event-store append run-'),
      10_000,
      'the run append span',
    );
    return { spans: exporter.getFinishedSpans(), deliveryId, runId };
  }

  /** The spans from the request to the run's append, each the parent of the next; every one in the caller's trace. */
  async function expectChain(
    spans: readonly ReadableSpan[],
    names: readonly string[],
    ids: { deliveryId: string; runId: string },
  ): Promise<void> {
    const chain: ReadableSpan[] = [];
    let parent = CALLER_SPAN;
    for (const name of names) {
      const span = spans.find((candidate) => candidate.name === name && candidate.parentSpanContext?.spanId === parent);
      expect({
        name,
        parent,
        found: Boolean(span),
        spans: span ? undefined : spans.map((s) => `${s.name} ${s.spanContext().spanId} ← ${s.parentSpanContext?.spanId ?? '-'}`),
      }).toEqual({ name, parent, found: true, spans: undefined });
      if (!span) return;
      chain.push(span);
      parent = span.spanContext().spanId;
    }
    expect(new Set(chain.map((span) => span.spanContext().traceId))).toEqual(new Set([CALLER_TRACE]));
    // The stored events name their append spans: what reads them later continues from there.
    const [accepted] = await raw.readStream(Streams.delivery(ids.deliveryId));
    const [created] = await raw.readStream(Streams.run(ids.runId));
    const appendOf = (prefix: string): ReadableSpan | undefined => chain.find((span) => span.name === `event-store append ${prefix}`);
    expect((accepted.metadata as { traceparent: string }).traceparent).toBe(
      `00-${CALLER_TRACE}-${appendOf('delivery-')?.spanContext().spanId}-01`,
    );
    expect((created.metadata as { traceparent: string }).traceparent).toBe(
      `00-${CALLER_TRACE}-${appendOf('run-')?.spanContext().spanId}-01`,
    );
  }

  it('embedded shape: request → append DeliveryAccepted → dispatch → append RunCreated', async () => {
    await startTracedDispatcher();
    const { spans, ...ids } = await deliverOne();
    await expectChain(
      spans,
      ['POST /workflow-webhooks/{webhook_id}', 'event-store append delivery-', 'dispatch DeliveryAccepted', 'event-store append run-'],
      ids,
    );
  }, 60_000);

  it('Kafka shape: request → append DeliveryAccepted → publish (traceparent header) → dispatch → append RunCreated', async () => {
    const brokers = kafkaBrokers();
    const name = uniqueName('tracing');
    const topics = kafkaTopicNames(`${name}.`);
    const kafka = testKafka(brokers);
    await ensureTopics(kafka, topics);
    stops.push(() => deleteTopics(kafka, Object.values(topics)));
    const relay = new KafkaRelaySupervisor({
      connection: { brokers },
      definition: { ...Relays.ingressWebhooks, name },
      store,
      checkpoints: raw.checkpoints(),
      topics,
    });
    stops.push(() => relay.stop());
    await relay.start();
    const dispatch = new DispatchNotifiedDeliveryUseCase(
      store,
      tracedDispatch(new DispatchDeliveryUseCase(store, systemClock, new ParkDispatchUseCase(store, systemClock))),
      new ParkDispatchUseCase(store, systemClock),
    );
    const newConsumer = (): WebhookEventsConsumer =>
      new WebhookEventsConsumer({
        kafka: createKafkaClient({ connection: { brokers }, clientId: name, logger: silentMessagingLogger }),
        topics,
        groupId: `${name}-dispatcher`,
        handlers: new Map([
          [
            DeliveryAcceptedMessage.eventType,
            async (event) => {
              await dispatch.execute({
                eventId: event.eventId,
                streamId: event.streamId,
                traceparent: event.traceparent,
                claimed: event.value as DeliveryAcceptedMessage.Value,
              });
            },
          ],
        ]),
        logger: silentMessagingLogger,
        tuning: { ...DEFAULT_CONSUMER_TUNING, sessionTimeoutMs: 6000 },
      });
    // Fresh topics: a member may join before the broker serves their partitions; join again then.
    let consumer = newConsumer();
    await eventually(
      async () =>
        consumer.start().then(
          () => true,
          async () => {
            await consumer.stop();
            consumer = newConsumer();
            return false;
          },
        ),
      30_000,
      'the consumer to join',
    );
    stops.push(() => consumer.stop());
    const { spans, ...ids } = await deliverOne();
    await expectChain(
      spans,
      [
        'POST /workflow-webhooks/{webhook_id}',
        'event-store append delivery-',
        `publish ${topics.webhookEvents}`,
        'dispatch DeliveryAccepted',
        'event-store append run-',
      ],
      ids,
    );
  }, 90_000);

  it("with tracing off, no span is made and the events keep the caller's trace id", async () => {
    await tracing?.shutdown();
    tracing = undefined;
    await startTracedDispatcher();
    const response = await postWithCallerTrace('untraced@example.com', `{"data":"${randomBytes(4).toString('hex')}"}`);
    const { run_id: runId } = (await response.json()) as { run_id: string };
    await eventually(async () => (await raw.readStream(Streams.run(runId))).length > 0, 30_000, 'the run');
    expect(exporter.getFinishedSpans()).toEqual([]);
    const [created] = await raw.readStream(Streams.run(runId));
    expect((created.metadata as { traceparent: string }).traceparent).toMatch(new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`));
  }, 60_000);
});
