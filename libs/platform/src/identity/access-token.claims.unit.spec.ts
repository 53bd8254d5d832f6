import { MAX_DISPLAY_LENGTH, claimAt, displayOf } from './access-token.claims';

describe('claimAt: the roles claim by name, else by dotted path', () => {
  it('given a plain name, then that claim', () => {
    expect(claimAt({ roles: ['admin'] }, 'roles')).toEqual(['admin']);
    expect(claimAt({ groups: 'viewer operator' }, 'groups')).toBe('viewer operator');
  });

  it('given a namespaced name with dots (Auth0), then the claim of exactly that name, not a path', () => {
    const payload = { 'https://wts.example.com/roles': ['operator'], https: { '//wts': { example: ['admin'] } } };
    expect(claimAt(payload, 'https://wts.example.com/roles')).toEqual(['operator']);
  });

  it('given a dotted path (Keycloak) and no claim of that name, then the nested value', () => {
    expect(claimAt({ realm_access: { roles: ['viewer'] } }, 'realm_access.roles')).toEqual(['viewer']);
    expect(claimAt({ resource_access: { 'wts-api': { roles: ['admin'] } } }, 'resource_access.wts-api.roles')).toEqual(['admin']);
  });

  it('given a claim named with the dots and the path both present, then the claim of that name wins', () => {
    expect(claimAt({ 'realm_access.roles': ['viewer'], realm_access: { roles: ['admin'] } }, 'realm_access.roles')).toEqual(['viewer']);
  });

  it.each([
    [{}, 'roles'],
    [{ realm_access: ['roles'] }, 'realm_access.roles'],
    [{ realm_access: 'roles' }, 'realm_access.roles'],
    [{ realm_access: null }, 'realm_access.roles'],
    [{ realm_access: {} }, 'realm_access.roles'],
    [{}, 'constructor'],
    [{}, 'toString.name'],
    [{ a: {} }, 'a.__proto__'],
  ])('given %j and %s, then nothing (never an inherited property)', (payload, name) => {
    expect(claimAt(payload, name)).toBeUndefined();
  });
});

describe('displayOf: what people recognise the holder by', () => {
  it('given email, preferred_username and name, then the first present in that order, else the subject', () => {
    expect(displayOf({ email: 'ada@example.com', preferred_username: 'ada', name: 'Ada' }, 'sub-1')).toBe('ada@example.com');
    expect(displayOf({ preferred_username: 'ada', name: 'Ada' }, 'sub-1')).toBe('ada');
    expect(displayOf({ name: 'Ada Lovelace' }, 'sub-1')).toBe('Ada Lovelace');
    expect(displayOf({}, 'sub-1')).toBe('sub-1');
  });

  it('given claims that are not strings or are blank, then they are skipped', () => {
    expect(displayOf({ email: ['ada@example.com'], preferred_username: ' ', name: 42 }, 'sub-1')).toBe('sub-1');
  });

  it('given a long value, then at most 200 characters, never half a character', () => {
    expect(displayOf({ name: 'x'.repeat(500) }, 's')).toBe('x'.repeat(MAX_DISPLAY_LENGTH));
    const emoji = '😀'.repeat(300);
    expect(Array.from(displayOf({ name: emoji }, 's'))).toEqual(Array.from('😀'.repeat(MAX_DISPLAY_LENGTH)));
    expect(displayOf({}, 'y'.repeat(300))).toHaveLength(MAX_DISPLAY_LENGTH);
  });
});
