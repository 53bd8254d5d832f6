import type { OperatorRole } from '@wts/contracts';
import { IsIn, IsISO8601, IsString, MaxLength, MinLength } from 'class-validator';
import { OPERATOR_ROLES } from '@wts/domain';
import { OptionalNotNull } from './optional-not-null.decorator';

export class IssueApiKeyDto {
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  @IsIn(OPERATOR_ROLES, { message: `role must be one of ${OPERATOR_ROLES.join(', ')}` })
  role!: OperatorRole;

  /** ISO 8601 with a time zone; absent: the key does not expire. */
  @OptionalNotNull()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'expires_at must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z' })
  expires_at?: string;
}
