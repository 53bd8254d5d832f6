import { IsString, MaxLength, ValidateIf } from 'class-validator';

/**
 * May be left out, but not sent as null: unlike @IsOptional (which also skips null), the other
 * validators still run on null, so `{"tools": null}` is a 400, never a wiped or broken field.
 */
export const OptionalNotNull = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

/**
 * OptionalNotNull text of at most `max` characters; `name` is how the messages call the field
 * (`verification.secret`). The rules are applied bottom up, as when stacked on the field.
 */
export const OptionalText =
  (name: string, max: number): PropertyDecorator =>
  (target, key) => {
    MaxLength(max, { message: `${name} must be at most ${max} characters` })(target, key);
    IsString({ message: `${name} must be a string` })(target, key);
    OptionalNotNull()(target, key);
  };
