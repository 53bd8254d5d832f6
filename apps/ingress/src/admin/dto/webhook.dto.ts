import { IsBoolean, IsEmail, MaxLength } from 'class-validator';

export class EnableWebhookDto {
  @IsEmail({ allow_utf8_local_part: true, require_tld: false }, { message: 'default_account must be the email of an account' })
  @MaxLength(254)
  default_account!: string;

  @IsBoolean()
  account_override_allowed!: boolean;
}
