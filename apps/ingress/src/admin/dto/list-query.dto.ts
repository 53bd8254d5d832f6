import { OptionalNotNull } from './optional-not-null.decorator';
import { Transform } from 'class-transformer';
import { IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import type { PageRequest } from '@wts/read-models';

/** `?limit=&cursor=` of every listing: newest first, `cursor` is the `next_cursor` of the page before. */
export class ListQueryDto {
  @OptionalNotNull()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value))
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @OptionalNotNull()
  @IsString()
  @MaxLength(128)
  @Matches(/^[A-Za-z0-9._-]+$/, { message: 'cursor must be the next_cursor of a previous page' })
  cursor?: string;
}

export const DEFAULT_PAGE_LIMIT = 100;

export function toPageRequest(query: ListQueryDto): PageRequest {
  return { limit: query.limit ?? DEFAULT_PAGE_LIMIT, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) };
}
