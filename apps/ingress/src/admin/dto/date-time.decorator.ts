import { isRfc3339DateTime } from '@wts/domain';
import { ValidateBy, type ValidationArguments } from 'class-validator';

/** The check itself is the domain's (an erasure's received range uses it too). */
export { isRfc3339DateTime };

/**
 * The one check of every time a request names (hold's `release_at`, an API key's `expires_at`):
 * an RFC 3339 date-time. class-validator's @IsISO8601 also takes week dates (`2020-W01`) and the
 * basic form (`20200101`), which Date.parse cannot read, and Date.parse alone rolls `2020-02-31`
 * over to 2 March.
 */
export const IsDateTime = (): PropertyDecorator =>
  ValidateBy({
    name: 'isDateTime',
    validator: {
      validate: (value: unknown) => isRfc3339DateTime(value),
      defaultMessage: (args?: ValidationArguments) =>
        `${args?.property ?? 'the value'} must be an RFC 3339 date-time with seconds and an offset, e.g. 2026-11-27T18:00:00Z or 2026-11-27T19:00:00+01:00`,
    },
  });
