import { OptionalNotNull } from './optional-not-null.decorator';
import { ArrayMaxSize, IsArray, IsBoolean, IsEmail, MaxLength } from 'class-validator';

const EMAIL = { allow_utf8_local_part: true, require_tld: false };

export class CreateAccountDto {
  @IsEmail(EMAIL, { message: 'email must be an email address' })
  @MaxLength(254)
  email!: string;

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

export class UpdateAccountDto {
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(100)
  @IsEmail(EMAIL, { each: true, message: 'each alias must be an email address' })
  @MaxLength(254, { each: true })
  aliases?: string[];

  @OptionalNotNull()
  @IsBoolean()
  active?: boolean;

  @OptionalNotNull()
  @IsBoolean()
  primary?: boolean;
}
