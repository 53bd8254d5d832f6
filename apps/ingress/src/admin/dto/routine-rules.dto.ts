import { FILTER_LIMITS } from '@wts/domain';
import {
  ValidateIf,
  Validate,
  ValidatorConstraint,
  IsOptional,
  IsString,
  MaxLength,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { OptionalText } from './optional-not-null.decorator';

/** `filter`: a CEL expression (a string; the service checks what it says), or null for none. */
@ValidatorConstraint({ name: 'filter' })
export class FilterValue implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return value === null || (typeof value === 'string' && value.length <= FILTER_LIMITS.maxSourceLength);
  }

  defaultMessage(): string {
    return `filter must be a CEL expression of at most ${FILTER_LIMITS.maxSourceLength} characters, or null for none`;
  }
}

/** `payload_schema`: a JSON Schema (an object, or true / false), or null for none. */
@ValidatorConstraint({ name: 'payloadSchema' })
export class PayloadSchemaValue implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return value === null || typeof value === 'boolean' || (typeof value === 'object' && !Array.isArray(value));
  }

  defaultMessage(): string {
    return 'payload_schema must be a JSON Schema (2020-12): an object, true or false; or null for none';
  }
}

const given = (_object: object, value: unknown): boolean => value !== undefined;

/** A try's `headers`: names to string values, as a request would carry them (at most 100, 8 KiB each). */
@ValidatorConstraint({ name: 'sampleHeaders' })
export class SampleHeadersValue implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const entries = Object.entries(value);
    return entries.length <= 100 && entries.every(([name, text]) => name.length <= 256 && typeof text === 'string' && text.length <= 8_192);
  }

  defaultMessage(): string {
    return 'headers must be an object of at most 100 header names to string values (8192 characters at most each)';
  }
}

/** The rules' members of the enable body and of the PATCH (absent: unchanged; null: none). */
export class RoutineRulesFieldsDto {
  @ValidateIf(given)
  @Validate(FilterValue)
  filter?: string | null;

  @ValidateIf(given)
  @Validate(PayloadSchemaValue)
  payload_schema?: object | boolean | null;
}

/**
 * Tries rules against a sample before saving them (the Config page's try-it panel): the filter and
 * schema given, or absent the webhook's own, over `sample` as a delivery's body would be read.
 */
export class TryRulesDto extends RoutineRulesFieldsDto {
  @IsString({ message: 'sample is required: the body to try, as text (JSON or not)' })
  @MaxLength(262_144, { message: 'sample must be at most 262144 characters' })
  sample!: string;

  @IsOptional()
  @IsString({ message: "content_type must be a string, e.g. 'application/json'" })
  @MaxLength(256, { message: 'content_type must be at most 256 characters' })
  content_type?: string;

  @OptionalText('event_type', 256)
  event_type?: string;

  /** What the filter sees as `headers` (names are lower-cased); absent: none. */
  @ValidateIf(given)
  @Validate(SampleHeadersValue)
  headers?: Record<string, string>;
}

/** The stored form of a schema: its JSON text (null stays null, absent stays absent). */
export function schemaText(value: object | boolean | null | undefined): string | null | undefined {
  return value === undefined || value === null ? value : JSON.stringify(value);
}
