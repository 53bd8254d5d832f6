import { ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { isIP } from 'node:net';

/** false: the peer is the client; else the peers (addresses, CIDR ranges, named ranges) trusted to set X-Forwarded-For. */
export type TrustProxy = false | readonly string[];

/** The named ranges of proxy-addr (what Fastify's trustProxy understands). */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const OFF = new Set(['off', 'false', 'none']);

/**
 * TRUST_PROXY: `off` (the default), or a comma-separated list of proxy addresses, CIDR ranges
 * (`10.0.0.0/8`) and the names `loopback`, `linklocal`, `uniquelocal`. Deliberately no `true`
 * (trust every peer): anyone could then claim any address with X-Forwarded-For.
 */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined || OFF.has(value.trim().toLowerCase())) return false;
  return value.split(',').map((entry) => entry.trim());
}

function isTrustedEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

@ValidatorConstraint({ name: 'trustProxy' })
export class TrustProxyValue implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string') return false;
    const parsed = parseTrustProxy(value);
    return parsed === false || (parsed.length > 0 && parsed.every(isTrustedEntry));
  }

  defaultMessage(): string {
    return 'TRUST_PROXY must be off, or a comma-separated list of proxy addresses, CIDR ranges (10.0.0.0/8) and loopback, linklocal, uniquelocal';
  }
}
