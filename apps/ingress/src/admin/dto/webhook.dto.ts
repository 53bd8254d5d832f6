import { Type } from 'class-transformer';
import { VERIFICATION_SCHEMES, type VerificationScheme } from '@wts/contracts';
import { PAYLOAD_RETENTION_DAYS } from '@wts/domain';
import {
  IsBoolean,
  IsIn,
  IsObject,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  isEmail,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';

import { IsDateTime } from './date-time.decorator';
import { OptionalNotNull, OptionalText } from './optional-not-null.decorator';
import { RoutineRulesFieldsDto } from './routine-rules.dto';

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

/**
 * payload_retention_days: whole days in PAYLOAD_RETENTION_DAYS, or null for the service's default.
 * Only a JSON number counts ("30" is refused): the body is the operator's, not a form's.
 */
@ValidatorConstraint({ name: 'payloadRetentionDays' })
class PayloadRetentionDaysValue implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    const { min, max } = PAYLOAD_RETENTION_DAYS;
    return value === null || (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max);
  }

  defaultMessage(args: ValidationArguments): string {
    const { min, max } = PAYLOAD_RETENTION_DAYS;
    const allowed = `a whole number of days from ${min} to ${max}, or null for the service's default`;
    return args.value === undefined
      ? `name at least one setting: payload_retention_days (${allowed}), filter or payload_schema`
      : `payload_retention_days must be ${allowed}`;
  }
}

/** The credential fields a verification carries (per scheme: docs/signed-senders.md); each checked by the service's rules. */
export interface CredentialFieldsDto {
  secret?: string;
  verify_token?: string;
  public_key?: string;
  client_state?: string;
}

/** Each credential field's longest accepted value. */
const CREDENTIAL_MAX_LENGTH = { secret: 1024, verify_token: 256, public_key: 128, client_state: 256 } as const;

/**
 * The credential fields as a body carries them: each may be left out (not null), a string of at
 * most its length; `path` is where they sit, as the messages name them ('verification.' in enable).
 */
function credentialFields(path: string): new () => CredentialFieldsDto {
  const field = (name: keyof typeof CREDENTIAL_MAX_LENGTH): PropertyDecorator =>
    OptionalText(`${path}${name}`, CREDENTIAL_MAX_LENGTH[name]);
  class CredentialFields implements CredentialFieldsDto {
    @field('secret')
    secret?: string;

    /** Meta: the verify token typed in Meta's webhook settings. */
    @field('verify_token')
    verify_token?: string;

    /** Discord: the application's public key, hex. */
    @field('public_key')
    public_key?: string;

    /** Microsoft Graph: the subscription's clientState. */
    @field('client_state')
    client_state?: string;
  }
  return CredentialFields;
}

/**
 * How deliveries prove their sender; what is pasted (a provider's secret, Meta's verify token,
 * Discord's public key, Graph's clientState) is never shown again.
 */
export class VerificationDto extends credentialFields('verification.') {
  @IsIn(VERIFICATION_SCHEMES, { message: `verification.scheme must be one of ${VERIFICATION_SCHEMES.join(', ')}` })
  scheme!: VerificationScheme;
}

export class EnableWebhookDto extends RoutineRulesFieldsDto {
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

  /** Absent or null: the service's default (PAYLOAD_RETENTION_SECONDS). */
  @ValidateIf((_object: object, value: unknown) => value !== undefined)
  @Validate(PayloadRetentionDaysValue)
  payload_retention_days?: number | null;
}

/**
 * The PATCH's body: the settings it changes — at least one of the retention (null: back to the
 * default), the filter and the payload schema (null: none); absent ones stay as they are.
 */
export class ChangeWebhookDto extends RoutineRulesFieldsDto {
  @ValidateIf(
    (body: ChangeWebhookDto, value: unknown) => value !== undefined || (body.filter === undefined && body.payload_schema === undefined),
  )
  @Validate(PayloadRetentionDaysValue)
  payload_retention_days?: number | null;
}

/**
 * Rotate's body: a webhook whose credential is the provider's takes the new one (`secret`; Meta's
 * `secret` and `verify_token`; Discord's `public_key`; Graph's `client_state`); others need none.
 */
export class RotateWebhookDto extends credentialFields('') {}

/** Hold's body: an optional time after which the service releases the hold by itself. */
export class HoldWebhookDto {
  @OptionalNotNull()
  @IsDateTime()
  release_at?: string;
}

/** Release's body: `discard` parks what the hold kept (`discarded_by_operator`, re-dispatchable) instead of running it. */
export class ReleaseWebhookDto {
  @OptionalNotNull()
  @IsBoolean({ message: 'discard must be true or false' })
  discard?: boolean;

  /** With discard: the hold the operator looked at (the view's `held_since`); another hold, or none, refuses the discard (409). */
  @OptionalText('held_since', 64)
  held_since?: string;
}
