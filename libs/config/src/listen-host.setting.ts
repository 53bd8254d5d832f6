import { ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { isIP } from 'node:net';

/** A host name as RFC 1123 allows it (letters, digits, hyphens; dot-separated labels of at most 63). */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** HOST: an IPv4 or IPv6 address (`127.0.0.1`, `0.0.0.0`, `::`), or a host name such as `localhost`. */
export function isListenHost(value: string): boolean {
  return isIP(value) !== 0 || HOST_NAME.test(value);
}

@ValidatorConstraint({ name: 'listenHost' })
export class ListenHostValue implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && isListenHost(value.trim());
  }

  defaultMessage(): string {
    return 'HOST must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name';
  }
}
