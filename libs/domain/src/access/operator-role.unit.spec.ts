import { highestRole, isOperatorRole, roleAllows } from './operator-role';

describe('operator roles', () => {
  it('each role allows itself and the roles below it, nothing above', () => {
    expect(roleAllows('viewer', 'viewer')).toBe(true);
    expect(roleAllows('viewer', 'operator')).toBe(false);
    expect(roleAllows('operator', 'viewer')).toBe(true);
    expect(roleAllows('operator', 'admin')).toBe(false);
    expect(roleAllows('admin', 'operator')).toBe(true);
    expect(roleAllows(undefined, 'viewer')).toBe(false);
  });

  it('takes the highest role of ours a claim names, in an array or a space- or comma-separated string', () => {
    expect(highestRole(['viewer', 'admin', 'operator'])).toBe('admin');
    expect(highestRole(['offline_access', 'operator', 'viewer'])).toBe('operator');
    expect(highestRole('viewer operator')).toBe('operator');
    expect(highestRole('viewer,admin')).toBe('admin');
    expect(highestRole('viewer')).toBe('viewer');
  });

  it('grants nothing for names it does not know, other types, or case variants', () => {
    expect(highestRole(['Admin', 'ADMIN', 'superuser'])).toBeUndefined();
    expect(highestRole([])).toBeUndefined();
    expect(highestRole(undefined)).toBeUndefined();
    expect(highestRole({ admin: true })).toBeUndefined();
    expect(highestRole([1, null, ['admin']])).toBeUndefined();
    expect(isOperatorRole('root')).toBe(false);
  });
});
