import { ValidateIf } from 'class-validator';

/**
 * May be left out, but not sent as null: unlike @IsOptional (which also skips null), the other
 * validators still run on null, so `{"tools": null}` is a 400, never a wiped or broken field.
 */
export const OptionalNotNull = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);
