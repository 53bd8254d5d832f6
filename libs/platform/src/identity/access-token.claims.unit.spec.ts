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

describe('displayOf: what people recognise the holder by, and whether the provider vouches for it', () => {
  const shown = (payload: Record<string, unknown>, subject = 'sub-1'): string => displayOf(payload, subject).display;

  it('given an email marked verified, then the email, verified', () => {
    expect(displayOf({ email: 'ada@example.com', email_verified: true, preferred_username: 'ada' }, 'sub-1')).toEqual({
      display: 'ada@example.com',
      displayVerified: true,
    });
  });

  it('given an email not marked verified (false, absent, or not the JSON true), then the username, else the subject, unverified', () => {
    for (const email_verified of [false, undefined, 'true', 1, null]) {
      expect(displayOf({ email: 'ceo@example.com', email_verified, preferred_username: 'mallory' }, 'sub-1')).toEqual({
        display: 'mallory',
        displayVerified: false,
      });
      expect(displayOf({ email: 'ceo@example.com', email_verified }, 'sub-1')).toEqual({ display: 'sub-1', displayVerified: false });
    }
  });

  it('given a name only, then the subject: a name is free text, never shown', () => {
    expect(displayOf({ name: 'Ada Lovelace' }, 'sub-1')).toEqual({ display: 'sub-1', displayVerified: false });
    expect(displayOf({ preferred_username: 'ada', name: 'Ada' }, 'sub-1')).toEqual({ display: 'ada', displayVerified: false });
    expect(displayOf({}, 'sub-1')).toEqual({ display: 'sub-1', displayVerified: false });
  });

  it('given claims that are not strings or are blank, then they are skipped', () => {
    expect(displayOf({ email: ['ada@example.com'], email_verified: true, preferred_username: ' ', name: 42 }, 'sub-1')).toEqual({
      display: 'sub-1',
      displayVerified: false,
    });
    expect(displayOf({ email: '  ', email_verified: true, preferred_username: 'ada' }, 'sub-1')).toEqual({
      display: 'ada',
      displayVerified: false,
    });
  });

  it('given a long value, then at most 200 characters, never half a character; a verified email cut short is not verified', () => {
    expect(shown({ preferred_username: 'x'.repeat(500) })).toBe('x'.repeat(MAX_DISPLAY_LENGTH));
    const emoji = '😀'.repeat(300);
    expect(Array.from(shown({ preferred_username: emoji }))).toEqual(Array.from('😀'.repeat(MAX_DISPLAY_LENGTH)));
    expect(shown({}, 'y'.repeat(300))).toHaveLength(MAX_DISPLAY_LENGTH);
    // Cut at 200, this address would read as another one (someone@example.com's look-alike prefix).
    const long = `${'a'.repeat(MAX_DISPLAY_LENGTH - 12)}@example.com.attacker.test`;
    expect(displayOf({ email: long, email_verified: true }, 'sub-1')).toEqual({
      display: `${'a'.repeat(MAX_DISPLAY_LENGTH - 12)}@example.com`,
      displayVerified: false,
    });
  });
});
