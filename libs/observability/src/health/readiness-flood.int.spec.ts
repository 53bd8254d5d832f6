import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { kafkaReadinessCheck } from '@wts/messaging';
import { kafkaBrokers } from '../../../../test/support/kafka-broker';
import { OperationsModule } from '../operations.module';
import type { ReadinessCheck } from './readiness.probe';

/**
 * Readiness is public: 1,000 concurrent probes over HTTP make at most one check per dependency per
 * second — here the real Kafka check (one long-lived admin connection) and a store check.
 */
describe('GET /health/ready under a flood of probes', () => {
  let app: NestFastifyApplication;
  let base: string;
  const calls = { kafka: 0, event_store: 0 };

  beforeAll(async () => {
    const kafka = kafkaReadinessCheck({ brokers: kafkaBrokers() }, 'readiness-flood');
    const counted = (name: 'kafka' | 'event_store', check: () => Promise<void>, close?: () => Promise<void>): ReadinessCheck => ({
      name,
      check: () => {
        calls[name] += 1;
        return check();
      },
      ...(close ? { close } : {}),
    });
    const checks = [
      counted(
        'kafka',
        () => kafka.check(),
        () => kafka.close(),
      ),
      counted('event_store', () => new Promise((resolve) => setTimeout(resolve, 5))),
    ];
    app = await NestFactory.create<NestFastifyApplication>(OperationsModule.forRoot(checks), new FastifyAdapter(), { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = await app.getUrl();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('1,000 concurrent probes: every one answered 200, each dependency checked at most once per second', async () => {
    const startedAt = Date.now();
    const statuses = await Promise.all(Array.from({ length: 1000 }, async () => (await fetch(`${base}/health/ready`)).status));
    const seconds = (Date.now() - startedAt) / 1000;
    expect(new Set(statuses)).toEqual(new Set([200]));
    const allowed = Math.ceil(seconds) + 1;
    process.stderr.write(
      `[readiness] 1000 probes in ${seconds.toFixed(2)} s: kafka checked ${calls.kafka}×, event_store ${calls.event_store}×\n`,
    );
    expect(calls.kafka).toBeGreaterThanOrEqual(1);
    expect(calls.kafka).toBeLessThanOrEqual(allowed);
    expect(calls.event_store).toBeLessThanOrEqual(allowed);
  }, 60_000);
});
