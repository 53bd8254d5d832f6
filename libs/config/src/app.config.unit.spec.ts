import { ConfigurationError, loadConfig } from './app.config';

describe('loadConfig', () => {
  it('given an empty environment, then the documented defaults', () => {
    const config = loadConfig({});
    expect(config.http).toEqual({
      port: 3000,
      host: '127.0.0.1',
      publicBaseUrl: 'http://localhost:3000',
      adminToken: undefined,
      trustProxy: false,
      dispatcherPort: 3001,
      opsPort: undefined,
    });
    expect(config.limits).toEqual({ maxPayloadBytes: 262_144, rateLimitPerMinute: 120, idempotencyRetentionMs: 86_400_000 });
    expect(config.eventStore.connectionString).toBeUndefined();
    expect(config.kafka).toBeUndefined();
    expect(config.redis.url).toBeUndefined();
    expect(config.database.url).toBeUndefined();
    expect(config.storage.dataDir.endsWith('/data')).toBe(true);
    expect(config.log).toEqual({ level: 'info', format: 'auto' });
    expect(config.supervisorPid).toBeUndefined();
  });

  it('given a log format and a supervisor, then both typed', () => {
    const config = loadConfig({ LOG_FORMAT: 'pretty', SUPERVISOR_PID: '4242' });
    expect(config.log.format).toBe('pretty');
    expect(config.supervisorPid).toBe(4242);
  });

  it('given values, then typed nested config (trailing slash of the base URL dropped)', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      PUBLIC_BASE_URL: 'https://hooks.example.com/',
      ADMIN_TOKEN: 'a-valid_token.with~chars+/==',
      KAFKA_BROKERS: 'k1:9092,k2:9092',
      REDIS_URL: 'redis://127.0.0.1:6379',
      DATABASE_URL: 'postgres://app@db:5432/wts',
      EVENTSTORE_CONNECTION_STRING: 'esdb://127.0.0.1:2113?tls=false',
      WEBHOOK_MAX_PAYLOAD_BYTES: '1024',
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '5',
      IDEMPOTENCY_RETENTION_SECONDS: '60',
    });
    expect(config.http).toEqual({
      port: 8080,
      host: '0.0.0.0',
      publicBaseUrl: 'https://hooks.example.com',
      adminToken: 'a-valid_token.with~chars+/==',
      trustProxy: false,
      dispatcherPort: 3001,
      opsPort: undefined,
    });
    expect(config.kafka).toEqual({ brokers: ['k1:9092', 'k2:9092'], sasl: undefined, ssl: false });
    expect(config.database.url).toBe('postgres://app@db:5432/wts');
    expect(config.limits).toEqual({ maxPayloadBytes: 1024, rateLimitPerMinute: 5, idempotencyRetentionMs: 60_000 });
  });

  it.each([
    ['PORT', 'abc', 'PORT'],
    ['PORT', '70000', 'PORT'],
    ['DISPATCHER_PORT', 'x', 'DISPATCHER_PORT'],
    ['HOST', 'every interface', 'HOST'],
    ['HOST', '0.0.0.0:3000', 'HOST'],
    ['HOST', '-bad-.example', 'HOST'],
    ['PUBLIC_BASE_URL', 'ftp://x', 'PUBLIC_BASE_URL'],
    ['ADMIN_TOKEN', 'short', 'ADMIN_TOKEN'],
    ['ADMIN_TOKEN', 'Str0ng!Passw0rd#2024', 'ADMIN_TOKEN may hold only'],
    ['KAFKA_BROKERS', 'nohostport', 'KAFKA_BROKERS'],
    ['REDIS_URL', 'http://x', 'REDIS_URL'],
    ['DATABASE_URL', 'mysql://x', 'DATABASE_URL'],
    ['EVENTSTORE_CONNECTION_STRING', 'postgres://x', 'EVENTSTORE_CONNECTION_STRING'],
    ['WEBHOOK_MAX_PAYLOAD_BYTES', '0', 'WEBHOOK_MAX_PAYLOAD_BYTES'],
    ['WEBHOOK_RATE_LIMIT_PER_MINUTE', '-1', 'WEBHOOK_RATE_LIMIT_PER_MINUTE'],
    ['IDEMPOTENCY_RETENTION_SECONDS', '1.5', 'IDEMPOTENCY_RETENTION_SECONDS'],
    ['LOG_FORMAT', 'xml', 'LOG_FORMAT'],
    ['SUPERVISOR_PID', '0', 'SUPERVISOR_PID'],
    ['SUPERVISOR_PID', 'launcher', 'SUPERVISOR_PID'],
  ])('given %s=%s, then a ConfigurationError naming it', (name, value, mention) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigurationError);
    expect(() => loadConfig({ [name]: value })).toThrow(mention);
  });

  it.each(['::', '::1', '10.0.0.5', 'localhost', 'api.internal.example'])('given HOST=%s, then listened on as given', (host) => {
    expect(loadConfig({ HOST: host }).http.host).toBe(host);
  });

  it("given OPS_PORT, then the ingress's health and metrics listener; equal to another port, a ConfigurationError", () => {
    expect(loadConfig({ OPS_PORT: '9464' }).http.opsPort).toBe(9464);
    expect(() => loadConfig({ OPS_PORT: '3000' })).toThrow('OPS_PORT must differ from PORT and DISPATCHER_PORT');
    expect(() => loadConfig({ OPS_PORT: '0' })).toThrow('OPS_PORT');
  });

  it('given PORT and DISPATCHER_PORT equal, then a ConfigurationError naming both (the second service could never listen)', () => {
    expect(() => loadConfig({ PORT: '4000', DISPATCHER_PORT: '4000' })).toThrow('PORT and DISPATCHER_PORT must differ');
    expect(loadConfig({ PORT: '0', DISPATCHER_PORT: '0' }).http.port).toBe(0);
  });

  it('given several bad values, then every problem is listed at once', () => {
    try {
      loadConfig({ PORT: 'x', REDIS_URL: 'nope' });
      throw new Error('expected a ConfigurationError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).problems.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('given TRUST_PROXY, then the trusted proxies (off by default; addresses, CIDR ranges, named ranges)', () => {
    expect(loadConfig({ TRUST_PROXY: 'off' }).http.trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8,uniquelocal' }).http.trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      'uniquelocal',
    ]);
    for (const bad of ['true', '*', '10.0.0.0/33', 'proxy.example.com', '1.2.3.4,', '1.2.3.4/8/1']) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(/TRUST_PROXY must be off/);
    }
  });
});

describe('tracing from the standard OTEL_* variables', () => {
  it.each([
    [{}, false],
    [{ OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_SERVICE_NAME: 'ingress' }, false],
  ])('given %j, tracing enabled is %s', (env, enabled) => {
    expect(loadConfig(env).tracing).toEqual({ enabled });
  });
});

describe('Kafka credentials (KAFKA_SASL_*, KAFKA_SSL)', () => {
  const brokers = { KAFKA_BROKERS: 'k1:9093' };

  it('given a SCRAM mechanism, a user and a password, then the connection authenticates (mechanism case-insensitive)', () => {
    const config = loadConfig({
      ...brokers,
      KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      KAFKA_SASL_USERNAME: 'ingress',
      KAFKA_SASL_PASSWORD: ' pass word ',
    });
    expect(config.kafka).toEqual({
      brokers: ['k1:9093'],
      sasl: { mechanism: 'scram-sha-512', username: 'ingress', password: ' pass word ' },
      ssl: false,
    });
  });

  it('given KAFKA_SSL, then TLS; plain only over TLS', () => {
    expect(loadConfig({ ...brokers, KAFKA_SSL: 'true' }).kafka).toEqual({ brokers: ['k1:9093'], sasl: undefined, ssl: true });
    expect(loadConfig({ ...brokers, KAFKA_SSL: 'false' }).kafka?.ssl).toBe(false);
    const plain = { ...brokers, KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' };
    expect(() => loadConfig(plain)).toThrow('KAFKA_SASL_MECHANISM=plain sends the password as it is: set KAFKA_SSL=true');
    expect(loadConfig({ ...plain, KAFKA_SSL: '1' }).kafka?.sasl?.mechanism).toBe('plain');
  });

  it.each([
    [
      { KAFKA_SASL_MECHANISM: 'scram-sha-512' },
      ['KAFKA_SASL_USERNAME is required with KAFKA_SASL_MECHANISM', 'KAFKA_SASL_PASSWORD is required with KAFKA_SASL_MECHANISM'],
    ],
    [
      { KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' },
      ['KAFKA_SASL_MECHANISM is required with KAFKA_SASL_USERNAME / KAFKA_SASL_PASSWORD (one of scram-sha-256, scram-sha-512, plain)'],
    ],
    [
      { KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' },
      ['KAFKA_SASL_MECHANISM must be one of scram-sha-256, scram-sha-512, plain'],
    ],
    [{ KAFKA_SSL: 'maybe' }, ['KAFKA_SSL must be true or false']],
  ])('given %j with brokers, then a ConfigurationError naming every fault', (env, messages) => {
    const error = captureError(() => loadConfig({ ...brokers, ...env }));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems).toEqual(messages);
  });

  it('given credentials without KAFKA_BROKERS, then a ConfigurationError (they would be ignored)', () => {
    expect(() => loadConfig({ KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' })).toThrow(
      'KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD need KAFKA_BROKERS',
    );
    expect(() => loadConfig({ KAFKA_SSL: 'true' })).toThrow('KAFKA_SSL needs KAFKA_BROKERS');
  });

  it('given a password, then the configuration error never shows it', () => {
    const error = captureError(() =>
      loadConfig({ ...brokers, KAFKA_SASL_MECHANISM: 'nope', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'hunter2-secret' }),
    );
    expect(String(error)).not.toContain('hunter2-secret');
  });
});

function captureError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
