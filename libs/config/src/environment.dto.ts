import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength, Validate, ValidateIf } from 'class-validator';
import { ListenHostValue } from './listen-host.setting';
import { OidcIssuerValue } from './oidc.setting';
import { TrustProxyValue } from './trust-proxy.setting';

const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : value;
/**
 * An integer variable (read from its text) from `min` to `max`, its message naming it; `messages`
 * say what is out of range instead of class-validator's words. Applied bottom up, as when stacked.
 */
const IntegerSetting =
  (min: number, max: number, messages: { readonly min?: string; readonly max?: string } = {}): PropertyDecorator =>
  (target, key) => {
    Max(max, messages.max === undefined ? undefined : { message: messages.max })(target, key);
    Min(min, messages.min === undefined ? undefined : { message: messages.min })(target, key);
    IsInt({ message: `${String(key)} must be an integer` })(target, key);
    Transform(toInt)(target, key);
  };
const emptyToUndefined = ({ value }: { value: unknown }): unknown => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/** Every environment variable the services read, validated once at start. */
export class EnvironmentDto {
  @IntegerSetting(0, 65535)
  PORT = 3000;

  /** The run-dispatcher's health and metrics port (0: any free port, printed at start). */
  @IntegerSetting(0, 65535)
  DISPATCHER_PORT = 3001;

  /**
   * The ingress's separate listener for health and metrics (unset: they are served on PORT). Set,
   * PORT serves neither, so the public edge can expose PORT alone.
   */
  @Transform(toInt)
  @IsOptional()
  @IsInt({ message: 'OPS_PORT must be an integer' })
  @Min(1)
  @Max(65535)
  OPS_PORT?: number;

  /** The address both services listen on: loopback unless a deployment asks for more (compose: 0.0.0.0). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Validate(ListenHostValue)
  HOST = '127.0.0.1';

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl(
    { require_tld: false, require_protocol: true, protocols: ['http', 'https'] },
    { message: 'PUBLIC_BASE_URL must be an http(s) URL' },
  )
  PUBLIC_BASE_URL?: string;

  /** The bootstrap token of the admin API; `off`: none at all, people sign in through OIDC_ISSUER only. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @ValidateIf((dto: EnvironmentDto) => dto.ADMIN_TOKEN !== 'off')
  @IsString()
  @MinLength(16, { message: 'ADMIN_TOKEN must be at least 16 characters (or off, with OIDC_ISSUER)' })
  // The characters a bearer token may hold (RFC 6750 token68), so it can always be presented.
  @Matches(/^[A-Za-z0-9\-._~+/]+=*$/, { message: 'ADMIN_TOKEN may hold only letters, digits and - . _ ~ + / (then optional =)' })
  ADMIN_TOKEN?: string;

  @IsString()
  @MinLength(1)
  DATA_DIR = './data';

  /** The OpenID provider whose access tokens the admin API accepts (exact: a trailing slash is part of it). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Validate(OidcIssuerValue)
  OIDC_ISSUER?: string;

  /** The `aud` of access tokens meant for the admin API; required with OIDC_ISSUER (checked in oidc.setting.ts). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OIDC_AUDIENCE?: string;

  /** The Config page's public client (authorization code with PKCE); optional. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OIDC_CLIENT_ID?: string;

  /** The claim holding the roles, or a dotted path to it (`realm_access.roles`). */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OIDC_ROLES_CLAIM = 'roles';

  /**
   * What the Config page's sign-in asks for: OpenID scopes and, where the provider wants the API
   * named by a scope (Entra ID: `api://<app-id>/admin`), that scope.
   */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/, {
    message: 'OIDC_SCOPE must be scope tokens separated by single spaces (RFC 6749 §3.3), e.g. "openid email profile"',
  })
  OIDC_SCOPE = 'openid email profile';

  @IntegerSetting(1, 86_400, {
    min: 'OIDC_JWKS_CACHE_SECONDS must be between 1 and 86400',
    max: 'OIDC_JWKS_CACHE_SECONDS must be between 1 and 86400',
  })
  OIDC_JWKS_CACHE_SECONDS = 300;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover|kdb|kdb\+discover):\/\//, {
    message: 'EVENTSTORE_CONNECTION_STRING must be an esdb:// (or kurrentdb://) connection string',
  })
  EVENTSTORE_CONNECTION_STRING?: string;

  /** The EventStoreDB server's MaxAppendSize (its default: 1 MiB). Only with EVENTSTORE_CONNECTION_STRING. */
  @IntegerSetting(65_536, 1_073_741_824)
  EVENTSTORE_MAX_APPEND_BYTES = 1_048_576;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[^\s,]+:\d+(,[^\s,]+:\d+)*$/, { message: 'KAFKA_BROKERS must be host:port[,host:port...]' })
  KAFKA_BROKERS?: string;

  /** scram-sha-256, scram-sha-512 or plain (plain only with KAFKA_SSL); checked with the rest in kafka-connection.setting.ts. */
  @IsOptional()
  @IsString()
  KAFKA_SASL_MECHANISM?: string;

  @IsOptional()
  @IsString()
  KAFKA_SASL_USERNAME?: string;

  @IsOptional()
  @IsString()
  KAFKA_SASL_PASSWORD?: string;

  @IsOptional()
  @IsString()
  KAFKA_SSL?: string;

  /** PEM file of the certificate authorities the brokers' certificates are checked against (means TLS). */
  @IsOptional()
  @IsString()
  KAFKA_SSL_CA_FILE?: string;

  /**
   * The signing secrets' key ring: comma-separated 32-byte keys in base64 or base64url, the first
   * seals, all open (checked in encryption-keys.setting.ts). Never logged or printed.
   */
  @IsOptional()
  @IsString()
  SECRETS_ENCRYPTION_KEY?: string;

  /** Which peers may set X-Forwarded-For: off, or addresses / CIDR ranges / loopback, linklocal, uniquelocal. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Validate(TrustProxyValue)
  TRUST_PROXY?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// (or postgresql://) connection string' })
  DATABASE_URL?: string;

  @IntegerSetting(1, 64 * 1024 * 1024)
  WEBHOOK_MAX_PAYLOAD_BYTES = 262_144;

  @IntegerSetting(1, 1_000_000)
  WEBHOOK_RATE_LIMIT_PER_MINUTE = 120;

  @IntegerSetting(1, 366 * 24 * 3600)
  IDEMPOTENCY_RETENTION_SECONDS = 86_400;

  /**
   * How long a delivery's payload is kept (a webhook may set its own, in days): then it is removed
   * with every copy. The record of the delivery (ids, times, digest, outcome) stays.
   */
  @IntegerSetting(60, 3650 * 24 * 3600, {
    min: 'PAYLOAD_RETENTION_SECONDS must be at least 60',
    max: 'PAYLOAD_RETENTION_SECONDS must be at most 315360000 (3650 days)',
  })
  PAYLOAD_RETENTION_SECONDS = 2_592_000;

  /** How far a signed sender's timestamp may be from now, either way (Standard Webhooks, Stripe). */
  @IntegerSetting(1, 24 * 3600)
  WEBHOOK_SIGNATURE_TOLERANCE_SECONDS = 300;

  @IsOptional()
  @Matches(/^(fatal|error|warn|info|debug|trace|silent)$/, { message: 'LOG_LEVEL must be a pino level' })
  LOG_LEVEL = 'info';

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^(json|pretty|auto)$/, { message: 'LOG_FORMAT must be json, pretty or auto' })
  LOG_FORMAT = 'auto';

  /** Set by whatever spawned the service (npm start's launcher, the tests): stop once it is gone. */
  @Transform(toInt)
  @IsOptional()
  @IsInt({ message: 'SUPERVISOR_PID must be a process id' })
  @Min(1)
  SUPERVISOR_PID?: number;
}
