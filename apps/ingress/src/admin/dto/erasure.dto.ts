import { ERASURE_LIMITS } from '@wts/domain';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsEmail, IsString, MaxLength, MinLength } from 'class-validator';
import { IsDateTime } from './date-time.decorator';
import { OptionalNotNull } from './optional-not-null.decorator';
import { IsWellFormedId } from './well-formed-id.decorator';

const EMAIL = { allow_utf8_local_part: true, require_tld: false };
const { maxDeliveryIds, containsMin, containsMax, maxEmail } = ERASURE_LIMITS;

/**
 * POST /admin/erasures: selectors that intersect. Each is checked here for its shape (a 400 naming
 * the field); what needs them together (at least one, received_after before received_before) and
 * the routine's existence are the service's, with the same wording for the command line.
 */
export class RequestErasureDto {
  @OptionalNotNull()
  @IsArray({ message: 'delivery_ids must be an array of delivery ids (dlv_…)' })
  @ArrayMinSize(1, { message: 'delivery_ids must name at least one delivery' })
  @ArrayMaxSize(maxDeliveryIds, { message: `delivery_ids names at most ${maxDeliveryIds} deliveries` })
  @IsWellFormedId('delivery', { each: true, message: 'each of delivery_ids must be a delivery id (dlv_…)' })
  delivery_ids?: string[];

  @OptionalNotNull()
  @IsWellFormedId('routine', { message: 'routine_id must be a routine id (rtn_…)' })
  routine_id?: string;

  @OptionalNotNull()
  @IsString({ message: 'trigger_account must be an email address' })
  @MaxLength(maxEmail, { message: `trigger_account must be at most ${maxEmail} characters` })
  @IsEmail(EMAIL, { message: 'trigger_account must be an email address' })
  trigger_account?: string;

  /** Inclusive. */
  @OptionalNotNull()
  @IsDateTime()
  received_after?: string;

  /** Exclusive. */
  @OptionalNotNull()
  @IsDateTime()
  received_before?: string;

  /** Matched case-insensitively inside the payload; never recorded (its SHA-256 only). Counted in UTF-16 units here, in code points by the service. */
  @OptionalNotNull()
  @IsString({ message: `contains must be a string of ${containsMin}–${containsMax} characters` })
  @MinLength(containsMin, { message: `contains must be ${containsMin}–${containsMax} characters` })
  @MaxLength(containsMax * 2, { message: `contains must be ${containsMin}–${containsMax} characters` })
  contains?: string;
}
