import type { AccountCatalogEvent, TriggerAccount } from '@wts/contracts';
import { accountCatalogDecider, type AccountCatalog } from '../catalog/account-catalog.decider';
import { isRejection, type RejectionCode } from '../shared/decision';
import { resolveTriggerAccount, type AccountResolutionInput } from './trigger-account.rules';

const PRIMARY = 'acc_PPPPPPPPPPPPPPPPPPPPPP';
const DEFAULT = 'acc_DDDDDDDDDDDDDDDDDDDDDD';
const OTHER = 'acc_OOOOOOOOOOOOOOOOOOOOOO';
const OUTSIDE = 'acc_XXXXXXXXXXXXXXXXXXXXXX';
const T0 = '2024-05-01T12:00:00.000Z';

const connected = (accountId: string, email: string, aliases: string[] = []): AccountCatalogEvent => ({
  type: 'AccountConnected',
  data: { accountId, email, aliases, connectedAt: T0 },
});
const deactivated = (accountId: string): AccountCatalogEvent => ({
  type: 'AccountUpdated',
  data: { accountId, active: false, updatedAt: T0 },
});
const aliasesSet = (accountId: string, aliases: string[]): AccountCatalogEvent => ({
  type: 'AccountUpdated',
  data: { accountId, aliases, updatedAt: T0 },
});
const primaryIs = (accountId: string | null): AccountCatalogEvent => ({
  type: 'PrimaryAccountChanged',
  data: { accountId, previousAccountId: null, changedAt: T0 },
});

const baseEvents: AccountCatalogEvent[] = [
  connected(PRIMARY, 'primary@example.com'),
  primaryIs(PRIMARY),
  connected(DEFAULT, 'default@example.com', ['Team@Example.com']),
  connected(OTHER, 'other@example.com', ['Other.Alias@Example.com']),
  connected(OUTSIDE, 'outside@example.com', ['outside-alias@example.com']),
];

const catalogOf = (...extra: AccountCatalogEvent[]): AccountCatalog =>
  [...baseEvents, ...extra].reduce(accountCatalogDecider.evolve, accountCatalogDecider.initialState());

const DEFAULT_ACCOUNT: TriggerAccount = { accountId: DEFAULT, email: 'default@example.com' };
const SCOPE = [PRIMARY, DEFAULT, OTHER];

function input(overrides: Partial<AccountResolutionInput> = {}): AccountResolutionInput {
  return {
    selection: undefined,
    accountOverrideAllowed: true,
    defaultAccount: DEFAULT_ACCOUNT,
    routineScope: SCOPE,
    catalog: catalogOf(),
    ...overrides,
  };
}

function resolved(overrides: Partial<AccountResolutionInput>): TriggerAccount {
  const result = resolveTriggerAccount(input(overrides));
  if (isRejection(result)) throw new Error(`expected an account, got ${result.code}: ${result.detail}`);
  return result;
}

function rejection(overrides: Partial<AccountResolutionInput>): RejectionCode | 'resolved' {
  const result = resolveTriggerAccount(input(overrides));
  return isRejection(result) ? result.code : 'resolved';
}

describe('resolveTriggerAccount — 1. the account in the request', () => {
  it('given a selection matching an account email and override allowed, then that account, as stored', () => {
    expect(resolved({ selection: 'OTHER@example.COM' })).toEqual({ accountId: OTHER, email: 'other@example.com' });
  });

  it('given a selection matching a synced alias, then that account with the alias as the matched address', () => {
    expect(resolved({ selection: 'other.alias@example.com' })).toEqual({ accountId: OTHER, email: 'Other.Alias@Example.com' });
  });

  it('given a selection, then it wins over the default and the primary account', () => {
    expect(resolved({ selection: 'primary@example.com' })).toEqual({ accountId: PRIMARY, email: 'primary@example.com' });
  });

  it('given a selection naming the default account by alias, then the alias is the matched address', () => {
    expect(resolved({ selection: 'team@example.com' })).toEqual({ accountId: DEFAULT, email: 'Team@Example.com' });
  });

  it('given a selection while override is not allowed, then account_override_not_allowed (rule 9)', () => {
    expect(rejection({ selection: 'other@example.com', accountOverrideAllowed: false })).toBe('account_override_not_allowed');
  });

  it('given a selection of the default account itself while override is not allowed, then still account_override_not_allowed', () => {
    expect(rejection({ selection: 'default@example.com', accountOverrideAllowed: false })).toBe('account_override_not_allowed');
  });

  it('given a selection that does not even match while override is not allowed, then the override rule answers first', () => {
    expect(rejection({ selection: 'nobody@example.com', accountOverrideAllowed: false })).toBe('account_override_not_allowed');
  });

  it('given an empty selection while override is not allowed, then account_override_not_allowed', () => {
    expect(rejection({ selection: '', accountOverrideAllowed: false })).toBe('account_override_not_allowed');
  });

  it.each([
    ['an unknown address', 'nobody@example.com'],
    ['the empty string', ''],
    ['an address with surrounding spaces', ' other@example.com '],
    ['a partial address', 'other@example'],
  ])('given %s as the selection, then account_not_found (rule 8)', (_case, selection) => {
    expect(rejection({ selection })).toBe('account_not_found');
  });

  it('given a selection of an inactive account, then account_not_found', () => {
    expect(rejection({ selection: 'other@example.com', catalog: catalogOf(deactivated(OTHER)) })).toBe('account_not_found');
    expect(rejection({ selection: 'other.alias@example.com', catalog: catalogOf(deactivated(OTHER)) })).toBe('account_not_found');
  });

  it('given a selection outside the routine scope, then account_out_of_scope (rule 10), by email or alias', () => {
    expect(rejection({ selection: 'outside@example.com' })).toBe('account_out_of_scope');
    expect(rejection({ selection: 'OUTSIDE-ALIAS@example.com' })).toBe('account_out_of_scope');
  });

  it('given a selection outside the scope, then it never falls back to the default', () => {
    expect(rejection({ selection: 'outside@example.com', routineScope: [DEFAULT] })).toBe('account_out_of_scope');
  });
});

describe('resolveTriggerAccount — 2. the default account', () => {
  it('given no selection, then the configured default account', () => {
    expect(resolved({})).toEqual(DEFAULT_ACCOUNT);
  });

  it('given no selection while override is not allowed, then the configured default account', () => {
    expect(resolved({ accountOverrideAllowed: false })).toEqual(DEFAULT_ACCOUNT);
  });

  it('given a default configured by alias, then the alias is kept as the address', () => {
    const byAlias: TriggerAccount = { accountId: DEFAULT, email: 'Team@Example.com' };
    expect(resolved({ defaultAccount: byAlias })).toEqual(byAlias);
  });

  it('given a default configured by an alias that was removed since, then the account email', () => {
    const byAlias: TriggerAccount = { accountId: DEFAULT, email: 'Team@Example.com' };
    expect(resolved({ defaultAccount: byAlias, catalog: catalogOf(aliasesSet(DEFAULT, [])) })).toEqual(DEFAULT_ACCOUNT);
  });
});

describe('resolveTriggerAccount — 3. the primary account', () => {
  const PRIMARY_ACCOUNT: TriggerAccount = { accountId: PRIMARY, email: 'primary@example.com' };

  it('given the default account is inactive, then the primary account', () => {
    expect(resolved({ catalog: catalogOf(deactivated(DEFAULT)) })).toEqual(PRIMARY_ACCOUNT);
  });

  it('given the default account is outside the routine scope, then the primary account', () => {
    expect(resolved({ routineScope: [PRIMARY, OTHER] })).toEqual(PRIMARY_ACCOUNT);
  });

  it('given the default account is no longer in the catalog, then the primary account', () => {
    expect(resolved({ defaultAccount: { accountId: 'acc_GGGGGGGGGGGGGGGGGGGGGG', email: 'gone@example.com' } })).toEqual(PRIMARY_ACCOUNT);
  });

  it('given the default is unusable and the primary is inactive, then no_trigger_account', () => {
    expect(rejection({ catalog: catalogOf(deactivated(DEFAULT), deactivated(PRIMARY)) })).toBe('no_trigger_account');
  });

  it('given the default is unusable and the primary is outside the scope, then no_trigger_account', () => {
    expect(rejection({ routineScope: [OTHER] })).toBe('no_trigger_account');
  });

  it('given the default is unusable and there is no primary, then no_trigger_account', () => {
    expect(rejection({ catalog: catalogOf(deactivated(DEFAULT), primaryIs(null)) })).toBe('no_trigger_account');
  });

  it('given an empty scope, then nothing is usable: no_trigger_account', () => {
    expect(rejection({ routineScope: [] })).toBe('no_trigger_account');
  });

  it('given another active account in scope but neither default nor primary usable, then it is never picked', () => {
    expect(rejection({ routineScope: [OTHER], catalog: catalogOf(deactivated(DEFAULT)) })).toBe('no_trigger_account');
  });
});
