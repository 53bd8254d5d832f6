import { MAX_REDISPATCH } from '@wts/application';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, Matches, MaxLength } from 'class-validator';

/** Re-dispatch's body: the parked deliveries, by the source_event_id their listing shows. */
export class RedispatchParkedDto {
  @IsArray({ message: 'source_event_ids must be an array of the parked rows’ source_event_id' })
  @ArrayMinSize(1, { message: 'source_event_ids must name at least one parked delivery' })
  @ArrayMaxSize(MAX_REDISPATCH, { message: `source_event_ids names at most ${MAX_REDISPATCH} parked deliveries at a time` })
  @IsString({ each: true, message: 'each source_event_id must be a string' })
  @MaxLength(300, { each: true, message: 'each source_event_id must be at most 300 characters' })
  @Matches(/^[A-Za-z0-9:/._-]+$/, { each: true, message: 'each source_event_id must be one from the parked listing' })
  source_event_ids!: string[];
}
