import { ValidateBy, type ValidationOptions } from 'class-validator';
import { isWellFormedId, type IdKind } from '@wts/domain';

/** The domain's id check (isWellFormedId: the kind's prefix, 16–128 base64url characters) as a class-validator rule. */
export const IsWellFormedId = (kind: IdKind, options?: ValidationOptions): PropertyDecorator =>
  ValidateBy(
    {
      name: 'isWellFormedId',
      constraints: [kind],
      validator: { validate: (value: unknown) => typeof value === 'string' && isWellFormedId(kind, value) },
    },
    options,
  );
