import { ArrayMaxSize, IsArray, IsBoolean, IsEmail, IsOptional, MaxLength } from 'class-validator';

const EMAIL = { allow_utf8_local_part: true, require_tld: false };

export class CreateAccountDto {
  @IsEmail(EMAIL, { message: 'email must be an email address' })
  @MaxLength(254)
  email!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsEmail(EMAIL, { each: true, message: 'each alias must be an email address' })
  @MaxLength(254, { each: true })
  aliases?: string[];

  @IsOptional()
  @IsBoolean()
  primary?: boolean;
}

export class UpdateAccountDto {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsEmail(EMAIL, { each: true, message: 'each alias must be an email address' })
  @MaxLength(254, { each: true })
  aliases?: string[];

  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @IsOptional()
  @IsBoolean()
  primary?: boolean;
}
