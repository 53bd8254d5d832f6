import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './app.config';

describe('KAFKA_SSL_CA_FILE (a private certificate authority for the brokers)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wts-kafka-ca-'));
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, pem);
  writeFileSync(join(dir, 'not-a-cert.txt'), 'hello');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const brokers = { KAFKA_BROKERS: 'kafka:9092' };

  it('given a PEM file, then TLS trusting exactly what it holds (read once at start)', () => {
    expect(loadConfig({ ...brokers, KAFKA_SSL_CA_FILE: caFile }).kafka).toEqual({
      brokers: ['kafka:9092'],
      sasl: undefined,
      ssl: true,
      ca: pem,
    });
    expect(loadConfig({ ...brokers, KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: caFile }).kafka?.ca).toBe(pem);
  });

  it.each([
    [{ KAFKA_SSL_CA_FILE: join(dir, 'missing.pem') }, `KAFKA_SSL_CA_FILE cannot be read (ENOENT): ${join(dir, 'missing.pem')}`],
    [{ KAFKA_SSL_CA_FILE: join(dir, 'not-a-cert.txt') }, `KAFKA_SSL_CA_FILE holds no PEM certificate: ${join(dir, 'not-a-cert.txt')}`],
    [{ KAFKA_SSL_CA_FILE: caFile, KAFKA_SSL: 'false' }, 'KAFKA_SSL_CA_FILE means TLS: drop KAFKA_SSL=false'],
  ])('given %j, then a ConfigurationError: %s', (env, message) => {
    expect(() => loadConfig({ ...brokers, ...env })).toThrow(message);
  });

  it('given it without KAFKA_BROKERS, then a ConfigurationError', () => {
    expect(() => loadConfig({ KAFKA_SSL_CA_FILE: caFile })).toThrow('KAFKA_SSL_CA_FILE needs KAFKA_BROKERS');
  });
});
