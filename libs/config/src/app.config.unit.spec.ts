import { ConfigurationError, adminCredentialProblem, loadConfig } from './app.config';
import { captureError } from '../../../test/support/thrown-error.assertions';

describe('loadConfig', () => {
  it('given an empty environment, then the documented defaults', () => {
    const config = loadConfig({});
    expect(config.http).toEqual({
      port: 3000,
      host: '127.0.0.1',
      publicBaseUrl: 'http://localhost:3000',
      adminToken: undefined,
      bootstrapTokenDisabled: false,
      trustProxy: false,
      dispatcherPort: 3001,
      opsPort: undefined,
    });
    expect(config.oidc).toBeUndefined();
    expect(config.limits).toEqual({
      maxPayloadBytes: 262_144,
      rateLimitPerMinute: 120,
      idempotencyRetentionMs: 86_400_000,
      signatureToleranceSeconds: 300,
      payloadRetentionSeconds: 2_592_000,
    });
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
      IDEMPOTENCY_RETENTION_SECONDS: '600',
      WEBHOOK_SIGNATURE_TOLERANCE_SECONDS: '120',
      PAYLOAD_RETENTION_SECONDS: '3600',
    });
    expect(config.http).toEqual({
      port: 8080,
      host: '0.0.0.0',
      publicBaseUrl: 'https://hooks.example.com',
      adminToken: 'a-valid_token.with~chars+/==',
      bootstrapTokenDisabled: false,
      trustProxy: false,
      dispatcherPort: 3001,
      opsPort: undefined,
    });
    expect(config.kafka).toEqual({ brokers: ['k1:9092', 'k2:9092'], sasl: undefined, ssl: false });
    expect(config.database.url).toBe('postgres://app@db:5432/wts');
    expect(config.limits).toEqual({
      maxPayloadBytes: 1024,
      rateLimitPerMinute: 5,
      idempotencyRetentionMs: 600_000,
      signatureToleranceSeconds: 120,
      payloadRetentionSeconds: 3600,
    });
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
    ['ADMIN_TOKEN', '0123456789abcde', 'ADMIN_TOKEN must be at least 16 characters'],
    ['ADMIN_TOKEN', 'OFF', 'ADMIN_TOKEN must be at least 16 characters (or off, with OIDC_ISSUER)'],
    ['OIDC_ISSUER', 'http://idp.example.com', 'OIDC_ISSUER must be an https URL'],
    ['OIDC_ISSUER', 'idp.example.com', 'OIDC_ISSUER must be an https URL'],
    ['OIDC_ISSUER', 'https://idp.example.com/?tenant=1', 'OIDC_ISSUER must be an https URL'],
    ['OIDC_ISSUER', 'https://idp.example.com/#x', 'OIDC_ISSUER must be an https URL'],
    ['OIDC_ISSUER', 'https://user:pass@idp.example.com', 'OIDC_ISSUER must be an https URL'],
    ['OIDC_ISSUER', 'ftp://idp.example.com', 'OIDC_ISSUER must be an https URL'],
    ['OIDC_JWKS_CACHE_SECONDS', '0', 'OIDC_JWKS_CACHE_SECONDS must be between 1 and 86400'],
    ['OIDC_JWKS_CACHE_SECONDS', '86401', 'OIDC_JWKS_CACHE_SECONDS must be between 1 and 86400'],
    ['OIDC_JWKS_CACHE_SECONDS', 'soon', 'OIDC_JWKS_CACHE_SECONDS must be an integer'],
    ['ADMIN_TOKEN', 'Str0ng!Passw0rd#2024', 'ADMIN_TOKEN may hold only'],
    ['KAFKA_BROKERS', 'nohostport', 'KAFKA_BROKERS'],
    ['REDIS_URL', 'http://x', 'REDIS_URL'],
    ['DATABASE_URL', 'mysql://x', 'DATABASE_URL'],
    ['EVENTSTORE_CONNECTION_STRING', 'postgres://x', 'EVENTSTORE_CONNECTION_STRING'],
    ['WEBHOOK_MAX_PAYLOAD_BYTES', '0', 'WEBHOOK_MAX_PAYLOAD_BYTES'],
    ['WEBHOOK_SIGNATURE_TOLERANCE_SECONDS', '0', 'WEBHOOK_SIGNATURE_TOLERANCE_SECONDS'],
    ['PAYLOAD_RETENTION_SECONDS', '59', 'PAYLOAD_RETENTION_SECONDS must be at least 60'],
    ['PAYLOAD_RETENTION_SECONDS', '315360001', 'PAYLOAD_RETENTION_SECONDS must be at most'],
    ['PAYLOAD_RETENTION_SECONDS', '1.5', 'PAYLOAD_RETENTION_SECONDS'],
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

  it('given IDEMPOTENCY_RETENTION_SECONDS shorter than WEBHOOK_SIGNATURE_TOLERANCE_SECONDS, then a ConfigurationError naming both (a replay inside the tolerance would run again)', () => {
    const problems = (env: Record<string, string>): readonly string[] => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        if (!(error instanceof ConfigurationError)) throw error;
        return error.problems;
      }
    };
    expect(problems({ IDEMPOTENCY_RETENTION_SECONDS: '299' })).toEqual([
      'IDEMPOTENCY_RETENTION_SECONDS (299) must be at least WEBHOOK_SIGNATURE_TOLERANCE_SECONDS (300): a signed delivery replayed inside the signature tolerance, after its idempotency key was forgotten, would make a second run',
    ]);
    expect(problems({ IDEMPOTENCY_RETENTION_SECONDS: '60', WEBHOOK_SIGNATURE_TOLERANCE_SECONDS: '61' })).toEqual([
      expect.stringMatching(/^IDEMPOTENCY_RETENTION_SECONDS \(60\) must be at least WEBHOOK_SIGNATURE_TOLERANCE_SECONDS \(61\)/),
    ]);
    // Equal is enough; a bad value of either is reported as itself, not compared.
    expect(
      loadConfig({ IDEMPOTENCY_RETENTION_SECONDS: '300', WEBHOOK_SIGNATURE_TOLERANCE_SECONDS: '300' }).limits.idempotencyRetentionMs,
    ).toBe(300_000);
    expect(problems({ IDEMPOTENCY_RETENTION_SECONDS: '1.5' })).not.toContainEqual(expect.stringContaining('must be at least'));
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

describe('OpenID Connect (OIDC_*) and the admin credential', () => {
  const oidc = { OIDC_ISSUER: 'https://idp.example.com/realms/ops', OIDC_AUDIENCE: 'wts-admin-api' };
  const production = { EVENTSTORE_CONNECTION_STRING: 'esdb://127.0.0.1:2113?tls=false' };

  it('given an issuer and an audience, then the OIDC settings with the documented defaults', () => {
    expect(loadConfig(oidc).oidc).toEqual({
      issuer: 'https://idp.example.com/realms/ops',
      audience: 'wts-admin-api',
      clientId: undefined,
      rolesClaim: 'roles',
      jwksCacheMaxAgeMs: 300_000,
      scope: 'openid email profile',
    });
  });

  it('given every OIDC variable, then each typed; the issuer kept exactly as given (trailing slash included)', () => {
    const config = loadConfig({
      OIDC_ISSUER: 'https://tenant.eu.auth0.com/',
      OIDC_AUDIENCE: 'https://wts.example.com/admin',
      OIDC_CLIENT_ID: 'wts-config-page',
      OIDC_ROLES_CLAIM: 'https://wts.example.com/roles',
      OIDC_JWKS_CACHE_SECONDS: '60',
      OIDC_SCOPE: 'openid email api://0a1b/admin',
    });
    expect(config.oidc).toEqual({
      issuer: 'https://tenant.eu.auth0.com/',
      audience: 'https://wts.example.com/admin',
      clientId: 'wts-config-page',
      rolesClaim: 'https://wts.example.com/roles',
      jwksCacheMaxAgeMs: 60_000,
      scope: 'openid email api://0a1b/admin',
    });
    expect(loadConfig({ ...oidc, OIDC_ROLES_CLAIM: 'realm_access.roles' }).oidc?.rolesClaim).toBe('realm_access.roles');
    expect(loadConfig({ ...oidc, OIDC_ROLES_CLAIM: ' ' }).oidc?.rolesClaim).toBe('roles');
    expect(loadConfig({ ...oidc, OIDC_JWKS_CACHE_SECONDS: '86400' }).oidc?.jwksCacheMaxAgeMs).toBe(86_400_000);
  });

  it.each(['openid  email', 'openid "email"', 'openid\temail', ' openid'])(
    'given OIDC_SCOPE=%j, then a ConfigurationError naming the form',
    (scope) => {
      const error = captureError(() => loadConfig({ ...oidc, OIDC_SCOPE: scope }));
      expect((error as ConfigurationError).problems).toEqual([
        'OIDC_SCOPE must be scope tokens separated by single spaces (RFC 6749 §3.3), e.g. "openid email profile"',
      ]);
    },
  );

  it.each(['http://localhost:8080/realms/dev', 'http://127.0.0.1:9000', 'http://[::1]:9000/'])(
    'given OIDC_ISSUER=%s (this machine), then plain http is accepted',
    (issuer) => {
      expect(loadConfig({ ...oidc, OIDC_ISSUER: issuer }).oidc?.issuer).toBe(issuer);
    },
  );

  it('given OIDC_ISSUER without OIDC_AUDIENCE, then a ConfigurationError (a token for another API must not open this one)', () => {
    const error = captureError(() => loadConfig({ OIDC_ISSUER: oidc.OIDC_ISSUER }));
    expect((error as ConfigurationError).problems).toEqual([
      'OIDC_AUDIENCE is required with OIDC_ISSUER: the audience (aud) your identity provider puts in access tokens for this API',
    ]);
  });

  it('given OIDC_AUDIENCE or OIDC_CLIENT_ID without OIDC_ISSUER, then a ConfigurationError naming them', () => {
    expect(() => loadConfig({ OIDC_AUDIENCE: 'wts-admin-api' })).toThrow('OIDC_AUDIENCE needs OIDC_ISSUER');
    expect(() => loadConfig({ OIDC_CLIENT_ID: 'wts-config-page' })).toThrow('OIDC_CLIENT_ID needs OIDC_ISSUER');
    expect(() => loadConfig({ OIDC_AUDIENCE: 'a', OIDC_CLIENT_ID: 'b' })).toThrow('OIDC_AUDIENCE, OIDC_CLIENT_ID need OIDC_ISSUER');
  });

  it('given ADMIN_TOKEN=off with an issuer, then no bootstrap token at all', () => {
    const config = loadConfig({ ...oidc, ADMIN_TOKEN: 'off' });
    expect(config.http.adminToken).toBeUndefined();
    expect(config.http.bootstrapTokenDisabled).toBe(true);
    expect(loadConfig({ ...production, ...oidc, ADMIN_TOKEN: 'off' }).http.bootstrapTokenDisabled).toBe(true);
  });

  it.each([{}, production])('given ADMIN_TOKEN=off without an issuer (%j), then a ConfigurationError: nobody could sign in', (shape) => {
    const error = captureError(() => loadConfig({ ...shape, ADMIN_TOKEN: 'off' }));
    expect((error as ConfigurationError).problems).toEqual([
      'ADMIN_TOKEN=off needs OIDC_ISSUER (and OIDC_AUDIENCE): otherwise nobody could sign in to the admin API',
    ]);
  });

  it('given the production shape with neither ADMIN_TOKEN nor OIDC_ISSUER, then the ingress has no admin credential (the CLI loads it all the same)', () => {
    expect(adminCredentialProblem(loadConfig(production))).toBe(
      'the admin API would have no credential: set OIDC_ISSUER and OIDC_AUDIENCE (people sign in through your identity provider) or ADMIN_TOKEN (16+ characters)',
    );
  });

  it('given the production shape with either credential, then it starts; the embedded default generates a token', () => {
    const withToken = loadConfig({ ...production, ADMIN_TOKEN: 'a-long-enough-admin-token' });
    expect(withToken.http.adminToken).toBe('a-long-enough-admin-token');
    expect(adminCredentialProblem(withToken)).toBeUndefined();
    const withIssuer = loadConfig({ ...production, ...oidc });
    expect(withIssuer.http).toMatchObject({ adminToken: undefined, bootstrapTokenDisabled: false });
    expect(adminCredentialProblem(withIssuer)).toBeUndefined();
    expect(loadConfig({}).http).toMatchObject({ adminToken: undefined, bootstrapTokenDisabled: false });
    expect(adminCredentialProblem(loadConfig({}))).toBeUndefined();
  });

  it('given the production shape with an issuer but no audience, then the audience is the one problem named', () => {
    const error = captureError(() => loadConfig({ ...production, OIDC_ISSUER: oidc.OIDC_ISSUER }));
    expect((error as ConfigurationError).problems).toEqual([
      'OIDC_AUDIENCE is required with OIDC_ISSUER: the audience (aud) your identity provider puts in access tokens for this API',
    ]);
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
