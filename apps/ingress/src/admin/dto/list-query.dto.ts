import { OptionalNotNull } from './optional-not-null.decorator';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

export class ListQueryDto {
  @OptionalNotNull()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value))
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;
}
