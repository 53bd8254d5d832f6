import { OptionalNotNull } from './optional-not-null.decorator';
import { ArrayMaxSize, IsArray, IsBoolean, IsEmail, MaxLength } from 'class-validator';

const EMAIL = { allow_utf8_local_part: true, require_tld: false };

/** The fields both create and update accept; each may be left out, never sent as null. */
class AccountChangesDto {
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(100)
  @IsEmail(EMAIL, { each: true, message: 'each alias must be an email address' })
  @MaxLength(254, { each: true })
  aliases?: string[];

  @OptionalNotNull()
  @IsBoolean()
  primary?: boolean;
}

export class CreateAccountDto extends AccountChangesDto {
  @IsEmail(EMAIL, { message: 'email must be an email address' })
  @MaxLength(254)
  email!: string;
}

export class UpdateAccountDto extends AccountChangesDto {
  @OptionalNotNull()
  @IsBoolean()
  active?: boolean;
}
