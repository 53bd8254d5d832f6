import type { OperatorRole } from '@wts/contracts';
import { IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { OPERATOR_ROLES } from '@wts/domain';
import { IsDateTime } from './date-time.decorator';
import { OptionalNotNull } from './optional-not-null.decorator';

export class IssueApiKeyDto {
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  @IsIn(OPERATOR_ROLES, { message: `role must be one of ${OPERATOR_ROLES.join(', ')}` })
  role!: OperatorRole;

  /** A date and time with its offset (as hold's release_at); absent: the key does not expire. */
  @OptionalNotNull()
  @IsDateTime()
  expires_at?: string;
}
