import {
  IsBoolean,
  Validate,
  ValidatorConstraint,
  isEmail,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';

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

export class EnableWebhookDto {
  @Validate(DefaultAccountValue)
  default_account!: string;

  @IsBoolean({ message: 'account_override_allowed is required: true or false' })
  account_override_allowed!: boolean;
}
