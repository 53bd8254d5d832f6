import { Type } from 'class-transformer';
import { VERIFICATION_SCHEMES, type VerificationScheme } from '@wts/contracts';
import {
  IsBoolean,
  IsIn,
  IsObject,
  IsString,
  MaxLength,
  Validate,
  ValidateNested,
  ValidatorConstraint,
  isEmail,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';

import { OptionalNotNull } from './optional-not-null.decorator';

const EMAIL = { allow_utf8_local_part: true, require_tld: false };

/** One message per way default_account can be wrong (a missing one is "required", not "too long"). */
@ValidatorConstraint({ name: 'defaultAccount' })
class DefaultAccountValue implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && value.length <= 254 && isEmail(value, EMAIL);
  }

  defaultMessage(args: ValidationArguments): string {
    const value: unknown = args.value;
    if (value === undefined || value === null || value === '')
      return "default_account is required: the email of an active account inside the routine's scope";
    if (typeof value !== 'string') return 'default_account must be a string: the email of an account';
    if (value.length > 254) return 'default_account must be at most 254 characters';
    return 'default_account must be the email of an account';
  }
}

/** How deliveries prove their sender; the secret is a provider's (pasted) and is never shown again. */
export class VerificationDto {
  @IsIn(VERIFICATION_SCHEMES, { message: `verification.scheme must be one of ${VERIFICATION_SCHEMES.join(', ')}` })
  scheme!: VerificationScheme;

  @OptionalNotNull()
  @IsString({ message: 'verification.secret must be a string' })
  @MaxLength(1024, { message: 'verification.secret must be at most 1024 characters' })
  secret?: string;
}

export class EnableWebhookDto {
  @Validate(DefaultAccountValue)
  default_account!: string;

  @IsBoolean({ message: 'account_override_allowed is required: true or false' })
  account_override_allowed!: boolean;

  /** Absent: bearer (the spec's secret, made by the service). */
  @OptionalNotNull()
  @IsObject({ message: 'verification must be an object: {scheme, secret?}' })
  @ValidateNested()
  @Type(() => VerificationDto)
  verification?: VerificationDto;
}

/** Rotate's body: a GitHub or Stripe webhook takes the provider's new secret; others need none. */
export class RotateWebhookDto {
  @OptionalNotNull()
  @IsString({ message: 'secret must be a string' })
  @MaxLength(1024, { message: 'secret must be at most 1024 characters' })
  secret?: string;
}

/** A date and time in ISO 8601's extended form with its offset, that the platform reads as a time. */
@ValidatorConstraint({ name: 'releaseAt' })
class ReleaseAtValue implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && RELEASE_AT.test(value) && !Number.isNaN(Date.parse(value));
  }

  defaultMessage(): string {
    return 'release_at must be a date and time in ISO 8601 with its offset, e.g. 2026-11-27T18:00:00Z or 2026-11-27T19:00:00+01:00';
  }
}

/** YYYY-MM-DDThh:mm[:ss[.fraction]] then Z or ±hh:mm: the extended form every platform reads alike. */
const RELEASE_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Hold's body: an optional time after which the service releases the hold by itself. */
export class HoldWebhookDto {
  @OptionalNotNull()
  @Validate(ReleaseAtValue)
  release_at?: string;
}

/** Release's body: `discard` parks what the hold kept (`discarded_by_operator`, re-dispatchable) instead of running it. */
export class ReleaseWebhookDto {
  @OptionalNotNull()
  @IsBoolean({ message: 'discard must be true or false' })
  discard?: boolean;
}
