import { ValidateBy, type ValidationArguments } from 'class-validator';

/** YYYY-MM-DDThh:mm[:ss[.fraction]] then Z or ±hh:mm: the extended form every platform reads alike. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A date and time in ISO 8601's extended form with its offset (RFC 3339's shape), that the platform
 * reads as a time. The one check of every time a request names (hold's `release_at`, an API key's
 * `expires_at`): class-validator's @IsISO8601 also takes week dates (`2020-W01`) and the basic form
 * (`20200101`), which Date.parse cannot read.
 */
export const IsDateTime = (): PropertyDecorator =>
  ValidateBy({
    name: 'isDateTime',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
      defaultMessage: (args?: ValidationArguments) =>
        `${args?.property ?? 'the value'} must be a date and time in ISO 8601 with its offset, e.g. 2026-11-27T18:00:00Z or 2026-11-27T19:00:00+01:00`,
    },
  });
