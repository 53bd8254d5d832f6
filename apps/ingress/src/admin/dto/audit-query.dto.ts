import { IsString, Matches, MaxLength } from 'class-validator';
import type { AuditFilter } from '@wts/read-models';
import { IsWellFormedId } from './well-formed-id.decorator';
import { ListQueryDto } from './list-query.dto';
import { OptionalNotNull } from './optional-not-null.decorator';

/** `?routine_id=&actor=&limit=&cursor=` of `GET /admin/audit`. */
export class AuditQueryDto extends ListQueryDto {
  @OptionalNotNull()
  @IsWellFormedId('routine', { message: 'routine_id must be a routine id (rtn_…)' })
  routine_id?: string;

  /** An actor's subject (OIDC `sub`, API key id, `bootstrap`) or display (an email, a key's name). */
  @OptionalNotNull()
  @IsString()
  @MaxLength(254)
  @Matches(/^[^\p{Cc}]+$/u, { message: 'actor must be printable text' })
  actor?: string;
}

export function toAuditFilter(query: AuditQueryDto): AuditFilter {
  return {
    ...(query.routine_id === undefined ? {} : { routineId: query.routine_id }),
    ...(query.actor === undefined ? {} : { actor: query.actor }),
  };
}
