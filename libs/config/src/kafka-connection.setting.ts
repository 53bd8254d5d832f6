import { readFileSync } from 'node:fs';

/** How the services reach Kafka: brokers, and SASL / TLS when the cluster asks for them. */
export interface KafkaConnectionSettings {
  readonly brokers: readonly string[];
  /** Unset: no authentication (a plain broker, e.g. on a private network). */
  readonly sasl: KafkaSaslSettings | undefined;
  /** TLS to the brokers (KAFKA_SSL), with the system's trusted certificate authorities, or: */
  readonly ssl: boolean;
  /** …only the certificate authorities of KAFKA_SSL_CA_FILE (PEM text), when given. */
  readonly ca?: string;
}

export type KafkaSaslMechanism = 'scram-sha-256' | 'scram-sha-512' | 'plain';

export interface KafkaSaslSettings {
  readonly mechanism: KafkaSaslMechanism;
  readonly username: string;
  /** Never logged, never in an event or a message. */
  readonly password: string;
}

export interface KafkaConnectionEnvironment {
  readonly KAFKA_BROKERS?: string;
  readonly KAFKA_SASL_MECHANISM?: string;
  readonly KAFKA_SASL_USERNAME?: string;
  readonly KAFKA_SASL_PASSWORD?: string;
  readonly KAFKA_SSL?: string;
  readonly KAFKA_SSL_CA_FILE?: string;
}

const MECHANISMS: readonly KafkaSaslMechanism[] = ['scram-sha-256', 'scram-sha-512', 'plain'];
const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/**
 * The Kafka connection, or undefined without KAFKA_BROKERS (the embedded default has no broker).
 * Problems are pushed to `problems`, one sentence each: SASL settings come as a set (mechanism,
 * username and password), none of them without KAFKA_BROKERS, and PLAIN only over TLS (it sends
 * the password as it is).
 */
export function parseKafkaConnection(env: KafkaConnectionEnvironment, problems: string[]): KafkaConnectionSettings | undefined {
  const value = (raw: string | undefined): string | undefined => (raw === undefined || raw.trim() === '' ? undefined : raw);
  const brokers = value(env.KAFKA_BROKERS)?.split(',');
  const mechanismText = value(env.KAFKA_SASL_MECHANISM)?.trim().toLowerCase();
  const username = value(env.KAFKA_SASL_USERNAME);
  const password = value(env.KAFKA_SASL_PASSWORD);
  const sslText = value(env.KAFKA_SSL)?.trim().toLowerCase();

  const caFile = value(env.KAFKA_SSL_CA_FILE)?.trim();
  const sslOn = sslText !== undefined && TRUE.has(sslText);
  const sslOff = sslText !== undefined && FALSE.has(sslText);
  if (sslText !== undefined && !sslOn && !sslOff) problems.push('KAFKA_SSL must be true or false');
  if (caFile !== undefined && sslOff) problems.push('KAFKA_SSL_CA_FILE means TLS: drop KAFKA_SSL=false');
  // A CA file means TLS, trusting that authority.
  const ssl = sslOn || caFile !== undefined;
  const given = [
    mechanismText && 'KAFKA_SASL_MECHANISM',
    username && 'KAFKA_SASL_USERNAME',
    password && 'KAFKA_SASL_PASSWORD',
    sslOn && 'KAFKA_SSL',
    caFile && 'KAFKA_SSL_CA_FILE',
  ].filter(Boolean);
  if (!brokers) {
    if (given.length > 0) problems.push(`${given.join(', ')} ${given.length === 1 ? 'needs' : 'need'} KAFKA_BROKERS`);
    return undefined;
  }
  let sasl: KafkaSaslSettings | undefined;
  if (mechanismText !== undefined || username !== undefined || password !== undefined) {
    const mechanism = MECHANISMS.find((candidate) => candidate === mechanismText);
    if (mechanismText === undefined)
      problems.push(`KAFKA_SASL_MECHANISM is required with KAFKA_SASL_USERNAME / KAFKA_SASL_PASSWORD (one of ${MECHANISMS.join(', ')})`);
    else if (!mechanism) problems.push(`KAFKA_SASL_MECHANISM must be one of ${MECHANISMS.join(', ')}`);
    if (username === undefined) problems.push('KAFKA_SASL_USERNAME is required with KAFKA_SASL_MECHANISM');
    if (password === undefined) problems.push('KAFKA_SASL_PASSWORD is required with KAFKA_SASL_MECHANISM');
    if (mechanism === 'plain' && !ssl)
      problems.push('KAFKA_SASL_MECHANISM=plain sends the password as it is: set KAFKA_SSL=true, or use scram-sha-512');
    if (mechanism && username !== undefined && password !== undefined) sasl = { mechanism, username, password };
  }
  const ca = caFile === undefined ? undefined : readCertificates(caFile, problems);
  return { brokers, sasl, ssl, ...(ca === undefined ? {} : { ca }) };
}

/** The PEM certificates of KAFKA_SSL_CA_FILE, read once at start; a problem when it holds none. */
function readCertificates(file: string, problems: string[]): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    problems.push(`KAFKA_SSL_CA_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${file}`);
    return undefined;
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    problems.push(`KAFKA_SSL_CA_FILE holds no PEM certificate: ${file}`);
    return undefined;
  }
  return text;
}
