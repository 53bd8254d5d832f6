import 'reflect-metadata';
import { validateSync } from 'class-validator';
import { IsWellFormedId } from './well-formed-id.decorator';

class Scope {
  @IsWellFormedId('account', { each: true, message: 'account_scope must hold account ids (acc_…)' })
  account_scope!: unknown[];
}

const errorsFor = (ids: unknown[]): string[] => {
  const scope = Object.assign(new Scope(), { account_scope: ids });
  return validateSync(scope).flatMap((error) => Object.values(error.constraints ?? {}));
};

describe('IsWellFormedId: the domain id check as a validation rule', () => {
  it('given well-formed account ids, then nothing is reported', () => {
    expect(errorsFor(['acc_' + 'A'.repeat(16), 'acc_' + 'b-_9'.repeat(32)])).toEqual([]);
  });

  it.each([
    ['a body under 16 characters', 'acc_' + 'A'.repeat(15)],
    ['a body over 128 characters', 'acc_' + 'A'.repeat(129)],
    ['another kind', 'rtn_' + 'A'.repeat(16)],
    ['a character outside base64url', 'acc_' + 'A'.repeat(15) + '/'],
    ['not a string', 42],
  ])('given %s, then the message is the one the field names', (_case, id) => {
    expect(errorsFor([id])).toEqual(['account_scope must hold account ids (acc_…)']);
  });
});
