import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { resolve } from 'node:path';
import { parseSecretsSettings, type SecretsSettings } from './encryption-keys.setting';
import { EnvironmentDto } from './environment.dto';
import { parseKafkaConnection, type KafkaConnectionSettings } from './kafka-connection.setting';
import { parseOidc, type OidcSettings } from './oidc.setting';
import { parseTrustProxy, type TrustProxy } from './trust-proxy.setting';

/** Typed nested configuration: nothing else reads process.env. */
export interface AppConfig {
  readonly http: {
    readonly port: number;
    /** The address both services listen on (HOST): 127.0.0.1 unless a deployment asks for more. */
    readonly host: string;
    readonly publicBaseUrl: string;
    /** The bootstrap token (ADMIN_TOKEN); undefined when unset (npm start generates one) or off. */
    readonly adminToken: string | undefined;
    /** ADMIN_TOKEN=off: no bootstrap token at all, not even a generated one; people sign in through `oidc`. */
    readonly bootstrapTokenDisabled: boolean;
    /** The peers whose X-Forwarded-For names the client (false: none, the peer is the client). */
    readonly trustProxy: TrustProxy;
    /** The run-dispatcher's own HTTP port: health and metrics only (0: any free port). */
    readonly dispatcherPort: number;
    /** The ingress's separate health-and-metrics listener (OPS_PORT); undefined: served on PORT. */
    readonly opsPort: number | undefined;
  };
  readonly storage: { readonly dataDir: string };
  readonly eventStore: { readonly connectionString: string | undefined; readonly maxAppendBytes: number };
  /** Undefined without KAFKA_BROKERS: the embedded default, no broker at all. */
  readonly kafka: KafkaConnectionSettings | undefined;
  readonly redis: { readonly url: string | undefined };
  /** The OpenID provider whose access tokens the admin API accepts; undefined without OIDC_ISSUER. */
  readonly oidc: OidcSettings | undefined;
  /** Signing secrets' key ring (SECRETS_ENCRYPTION_KEY); printed or logged, it shows no key. */
  readonly secrets: SecretsSettings;
  /** Read models: PostgreSQL at this URL; unset: SQLite under DATA_DIR. */
  readonly database: { readonly url: string | undefined };
  readonly limits: {
    readonly maxPayloadBytes: number;
    readonly rateLimitPerMinute: number;
    readonly idempotencyRetentionMs: number;
    /** WEBHOOK_SIGNATURE_TOLERANCE_SECONDS: a signed timestamp further from now, either way, is refused. */
    readonly signatureToleranceSeconds: number;
    /** PAYLOAD_RETENTION_SECONDS: how long a payload is kept unless its webhook says otherwise. */
    readonly payloadRetentionSeconds: number;
  };
  readonly log: { readonly level: string; readonly format: LogFormat };
  /** OpenTelemetry traces: on only when the standard OTEL_* variables ask (the SDK reads the rest). */
  readonly tracing: { readonly enabled: boolean };
  /** The process that spawned this one and whose end ends this one (npm start, tests). */
  readonly supervisorPid: number | undefined;
}

/** auto: human-readable when stdout is a terminal, JSON lines otherwise. */
export type LogFormat = 'json' | 'pretty' | 'auto';

export class ConfigurationError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigurationError';
  }
}

const ENVIRONMENT_KEYS = [
  'PORT',
  'DISPATCHER_PORT',
  'HOST',
  'OPS_PORT',
  'PUBLIC_BASE_URL',
  'ADMIN_TOKEN',
  'DATA_DIR',
  'OIDC_ISSUER',
  'OIDC_AUDIENCE',
  'OIDC_CLIENT_ID',
  'OIDC_ROLES_CLAIM',
  'OIDC_JWKS_CACHE_SECONDS',
  'OIDC_SCOPE',
  'EVENTSTORE_CONNECTION_STRING',
  'EVENTSTORE_MAX_APPEND_BYTES',
  'KAFKA_BROKERS',
  'KAFKA_SASL_MECHANISM',
  'KAFKA_SASL_USERNAME',
  'KAFKA_SASL_PASSWORD',
  'KAFKA_SSL',
  'KAFKA_SSL_CA_FILE',
  'REDIS_URL',
  'TRUST_PROXY',
  'SECRETS_ENCRYPTION_KEY',
  'DATABASE_URL',
  'WEBHOOK_MAX_PAYLOAD_BYTES',
  'WEBHOOK_RATE_LIMIT_PER_MINUTE',
  'IDEMPOTENCY_RETENTION_SECONDS',
  'WEBHOOK_SIGNATURE_TOLERANCE_SECONDS',
  'PAYLOAD_RETENTION_SECONDS',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'SUPERVISOR_PID',
] as const satisfies readonly (keyof EnvironmentDto)[];

/** Validates the environment once; throws ConfigurationError listing every problem. */
export function loadConfig(env: Record<string, string | undefined>): AppConfig {
  const known = Object.fromEntries(ENVIRONMENT_KEYS.filter((key) => env[key] !== undefined).map((key) => [key, env[key]]));
  const dto = plainToInstance(EnvironmentDto, known);
  const errors = validateSync(dto, { whitelist: true, forbidUnknownValues: true });
  const problems = errors.flatMap((error) => Object.values(error.constraints ?? { invalid: `${error.property} is invalid` }));
  if (dto.PORT === dto.DISPATCHER_PORT && dto.PORT !== 0) problems.push(`PORT and DISPATCHER_PORT must differ (both are ${dto.PORT})`);
  if (dto.OPS_PORT !== undefined && (dto.OPS_PORT === dto.PORT || dto.OPS_PORT === dto.DISPATCHER_PORT)) {
    problems.push(`OPS_PORT must differ from PORT and DISPATCHER_PORT (it is ${dto.OPS_PORT})`);
  }
  const kafka = parseKafkaConnection(dto, problems);
  const oidc = parseOidc(dto, problems);
  const secrets = parseSecretsSettings(dto.SECRETS_ENCRYPTION_KEY, problems);
  const bootstrapTokenDisabled = dto.ADMIN_TOKEN === 'off';
  const adminToken = bootstrapTokenDisabled ? undefined : dto.ADMIN_TOKEN;
  // A signed delivery's id is its idempotency key: forgotten while its signature is still accepted, a replay would run again.
  const retention = dto.IDEMPOTENCY_RETENTION_SECONDS;
  const tolerance = dto.WEBHOOK_SIGNATURE_TOLERANCE_SECONDS;
  if (Number.isInteger(retention) && Number.isInteger(tolerance) && retention < tolerance) {
    problems.push(
      `IDEMPOTENCY_RETENTION_SECONDS (${retention}) must be at least WEBHOOK_SIGNATURE_TOLERANCE_SECONDS (${tolerance}): a signed delivery replayed inside the signature tolerance, after its idempotency key was forgotten, would make a second run`,
    );
  }
  if (bootstrapTokenDisabled && dto.OIDC_ISSUER === undefined) {
    problems.push('ADMIN_TOKEN=off needs OIDC_ISSUER (and OIDC_AUDIENCE): otherwise nobody could sign in to the admin API');
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  const publicBaseUrl = (dto.PUBLIC_BASE_URL ?? `http://localhost:${dto.PORT}`).replace(/\/+$/, '');
  return {
    http: {
      port: dto.PORT,
      host: dto.HOST.trim(),
      publicBaseUrl,
      adminToken,
      bootstrapTokenDisabled,
      trustProxy: parseTrustProxy(dto.TRUST_PROXY),
      dispatcherPort: dto.DISPATCHER_PORT,
      opsPort: dto.OPS_PORT,
    },
    storage: { dataDir: resolve(dto.DATA_DIR) },
    eventStore: { connectionString: dto.EVENTSTORE_CONNECTION_STRING, maxAppendBytes: dto.EVENTSTORE_MAX_APPEND_BYTES },
    kafka,
    redis: { url: dto.REDIS_URL },
    oidc,
    secrets,
    database: { url: dto.DATABASE_URL },
    limits: {
      maxPayloadBytes: dto.WEBHOOK_MAX_PAYLOAD_BYTES,
      rateLimitPerMinute: dto.WEBHOOK_RATE_LIMIT_PER_MINUTE,
      idempotencyRetentionMs: dto.IDEMPOTENCY_RETENTION_SECONDS * 1000,
      signatureToleranceSeconds: dto.WEBHOOK_SIGNATURE_TOLERANCE_SECONDS,
      payloadRetentionSeconds: dto.PAYLOAD_RETENTION_SECONDS,
    },
    log: { level: dto.LOG_LEVEL, format: dto.LOG_FORMAT as LogFormat },
    supervisorPid: dto.SUPERVISOR_PID,
    tracing: { enabled: tracingRequested(env) },
  };
}

/**
 * The admin API must have a credential someone holds (the ingress checks this at start; the CLI and
 * the run-dispatcher serve no admin API and do not): the production shape (EventStoreDB) never
 * relies on a token generated at start — it needs ADMIN_TOKEN or OIDC_ISSUER. The embedded default
 * without either generates and prints a token, as `npm start` always did. (ADMIN_TOKEN=off without
 * OIDC_ISSUER is refused by loadConfig itself, everywhere.)
 */
export function adminCredentialProblem(config: AppConfig): string | undefined {
  const production = config.eventStore.connectionString !== undefined;
  if (production && config.http.adminToken === undefined && config.oidc === undefined) {
    return 'the admin API would have no credential: set OIDC_ISSUER and OIDC_AUDIENCE (people sign in through your identity provider) or ADMIN_TOKEN (16+ characters)';
  }
  return undefined;
}

/**
 * Tracing is asked for by the standard variables: OTEL_TRACES_EXPORTER (other than `none`), or an
 * OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); never with
 * OTEL_SDK_DISABLED=true. Everything else (service name, sampler, exporter settings, resource
 * attributes) the SDK reads from its own OTEL_* variables.
 */
export function tracingRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter) return exporter !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}
