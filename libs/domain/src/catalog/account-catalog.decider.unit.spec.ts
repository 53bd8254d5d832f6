import type { AccountCatalogEvent } from '@wts/contracts';
import { ACCOUNT_A as A, ACCOUNT_B as B, ACCOUNT_C as C, T0, T1, specFor } from '@wts/testing';
import {
  accountCatalogDecider,
  initialAccountCatalog,
  matchActiveAccount,
  type AccountCatalog,
  type AccountCatalogCommand,
} from './account-catalog.decider';

const spec = specFor(accountCatalogDecider);

type Connect = Extract<AccountCatalogCommand, { type: 'ConnectAccount' }>;
type Update = Extract<AccountCatalogCommand, { type: 'UpdateAccount' }>;

const connect = (accountId: string, email: string, aliases: string[] = [], extra: Partial<Connect> = {}): Connect => ({
  type: 'ConnectAccount',
  accountId,
  email,
  aliases,
  now: T1,
  ...extra,
});
const update = (accountId: string, fields: Partial<Update> = {}): Update => ({ type: 'UpdateAccount', accountId, now: T1, ...fields });

const connected = (accountId: string, email: string, aliases: string[] = [], connectedAt = T0): AccountCatalogEvent => ({
  type: 'AccountConnected',
  data: { accountId, email, aliases, connectedAt },
});
const primaryChanged = (accountId: string | null, previousAccountId: string | null, changedAt = T0): AccountCatalogEvent => ({
  type: 'PrimaryAccountChanged',
  data: { accountId, previousAccountId, changedAt },
});
const updated = (
  data: Omit<Extract<AccountCatalogEvent, { type: 'AccountUpdated' }>['data'], 'updatedAt'>,
  updatedAt = T1,
): AccountCatalogEvent => ({
  type: 'AccountUpdated',
  data: { ...data, updatedAt },
});

/** A (primary, alias ops@example.com) and B (alias Sales@Example.com), both active. */
const twoAccounts: AccountCatalogEvent[] = [
  connected(A, 'alice@example.com', ['ops@example.com']),
  primaryChanged(A, null),
  connected(B, 'bob@example.com', ['Sales@Example.com']),
];

function fold(events: readonly AccountCatalogEvent[]): AccountCatalog {
  return events.reduce(accountCatalogDecider.evolve, accountCatalogDecider.initialState());
}

describe('accountCatalogDecider', () => {
  it('starts with no accounts and no primary', () => {
    const catalog = initialAccountCatalog();
    expect(catalog.accounts.size).toBe(0);
    expect(catalog.primaryAccountId).toBeNull();
  });

  describe('ConnectAccount', () => {
    it('given no accounts, when the first account connects, then it is connected and becomes primary', () => {
      spec
        .given([])
        .when(connect(A, 'alice@example.com', ['ops@example.com']))
        .then([connected(A, 'alice@example.com', ['ops@example.com'], T1), primaryChanged(A, null, T1)]);
    });

    it('given no accounts, when the first account connects with primary: false, then it is connected but not primary', () => {
      spec
        .given([])
        .when(connect(A, 'alice@example.com', [], { primary: false }))
        .then([connected(A, 'alice@example.com', [], T1)]);
    });

    it('given no primary (the first account declined it), when another account connects, then that one becomes primary', () => {
      spec
        .given([connected(A, 'alice@example.com')])
        .when(connect(B, 'bob@example.com'))
        .then([connected(B, 'bob@example.com', [], T1), primaryChanged(B, null, T1)]);
    });

    it('given a primary account, when another account connects without a choice, then it is not primary', () => {
      spec
        .given(twoAccounts)
        .when(connect(C, 'carol@example.com'))
        .then([connected(C, 'carol@example.com', [], T1)]);
    });

    it('given a primary account, when another account connects with primary: true, then the primary moves to it', () => {
      spec
        .given(twoAccounts)
        .when(connect(C, 'carol@example.com', [], { primary: true }))
        .then([connected(C, 'carol@example.com', [], T1), primaryChanged(C, A, T1)]);
    });

    it('given connected accounts folded, then they are active with their email and aliases as given', () => {
      const catalog = fold(twoAccounts);
      expect(catalog.primaryAccountId).toBe(A);
      expect(catalog.accounts.get(B)).toEqual({
        accountId: B,
        email: 'bob@example.com',
        aliases: ['Sales@Example.com'],
        active: true,
      });
    });

    it('given an account id already used, when connected again, then it is rejected', () => {
      spec.given(twoAccounts).when(connect(A, 'new@example.com')).thenRejects('validation_failed');
    });

    it.each([
      ['the same email', 'alice@example.com', []],
      ['the same email in another case', 'ALICE@Example.COM', []],
      ['an email equal to an alias of another account', 'OPS@example.com', []],
      ['an alias equal to the email of another account', 'carol@example.com', ['Bob@Example.com']],
      ['an alias equal to an alias of another account', 'carol@example.com', ['sales@example.com']],
    ])('given connected accounts, when connecting with %s, then email_already_connected', (_case, email, aliases) => {
      spec
        .given(twoAccounts)
        .when(connect(C, email, aliases))
        .thenRejects('email_already_connected');
    });

    it('given an inactive account, when its email is connected again, then it is still taken', () => {
      spec
        .given([...twoAccounts, updated({ accountId: B, active: false })])
        .when(connect(C, 'bob@example.com'))
        .thenRejects('email_already_connected');
    });

    it.each([
      ['an alias equal to its own email', 'carol@example.com', ['Carol@example.com']],
      ['the same alias twice', 'carol@example.com', ['c@example.com', 'C@EXAMPLE.COM']],
    ])('given no accounts, when one request carries %s, then email_already_connected', (_case, email, aliases) => {
      spec
        .given([])
        .when(connect(C, email, aliases))
        .thenRejects('email_already_connected');
    });
  });

  describe('UpdateAccount', () => {
    it('given an unknown account id, when updated, then unknown_account', () => {
      spec
        .given(twoAccounts)
        .when(update(C, { active: false }))
        .thenRejects('unknown_account');
    });

    it.each<[string, Update, AccountCatalogEvent[]]>([
      [
        'given an account, when its aliases change, then AccountUpdated carries only the aliases',
        update(B, { aliases: ['sales@example.com', 'team@example.com'] }),
        [updated({ accountId: B, aliases: ['sales@example.com', 'team@example.com'] })],
      ],
      [
        'given an account, when its aliases are set to the same list, then nothing happens',
        update(B, { aliases: ['Sales@Example.com'] }),
        [],
      ],
      [
        'given an account, when its aliases are cleared, then AccountUpdated carries an empty list',
        update(B, { aliases: [] }),
        [updated({ accountId: B, aliases: [] })],
      ],
      [
        'given an account, when it keeps one of its own aliases in another case, then that is no clash',
        update(B, { aliases: ['sales@example.com'] }),
        [updated({ accountId: B, aliases: ['sales@example.com'] })],
      ],
      [
        'given an active account, when deactivated, then AccountUpdated carries only active: false',
        update(B, { active: false }),
        [updated({ accountId: B, active: false })],
      ],
      ['given an active account, when set active again, then nothing happens', update(B, { active: true }), []],
      [
        'given an account, when aliases and active change together, then one AccountUpdated carries both',
        update(B, { aliases: [], active: false }),
        [updated({ accountId: B, aliases: [], active: false })],
      ],
      [
        'given a non-primary account, when made primary, then PrimaryAccountChanged names the previous primary',
        update(B, { primary: true }),
        [primaryChanged(B, A, T1)],
      ],
      ['given the primary account, when made primary again, then nothing happens', update(A, { primary: true }), []],
      [
        'given the primary account, when primary is set false, then there is no primary any more',
        update(A, { primary: false }),
        [primaryChanged(null, A, T1)],
      ],
      ['given a non-primary account, when primary is set false, then nothing happens', update(B, { primary: false }), []],
      ['given an account, when nothing is asked, then nothing happens', update(B), []],
      [
        'given an account, when deactivated and made primary, then AccountUpdated then PrimaryAccountChanged',
        update(B, { active: false, primary: true }),
        [updated({ accountId: B, active: false }), primaryChanged(B, A, T1)],
      ],
    ])('%s', (_title, command, expected) => {
      spec.given(twoAccounts).when(command).then(expected);
    });

    it.each([
      ["another account's email", ['ALICE@example.com']],
      ["another account's alias", ['Ops@Example.com']],
      ['its own email', ['BOB@example.com']],
      ['the same alias twice', ['x@example.com', 'X@example.com']],
    ])('given accounts, when an account takes %s as an alias, then email_already_connected', (_case, aliases) => {
      spec.given(twoAccounts).when(update(B, { aliases })).thenRejects('email_already_connected');
    });

    it('given an inactive account, when reactivated, then AccountUpdated carries active: true', () => {
      spec
        .given([...twoAccounts, updated({ accountId: B, active: false })])
        .when(update(B, { active: true }))
        .then([updated({ accountId: B, active: true })]);
    });

    it('given updates folded, then the account reflects them and untouched fields stay', () => {
      const catalog = fold([
        ...twoAccounts,
        updated({ accountId: B, aliases: ['team@example.com'] }),
        updated({ accountId: B, active: false }),
        primaryChanged(B, A, T1),
      ]);
      expect(catalog.accounts.get(B)).toEqual({ accountId: B, email: 'bob@example.com', aliases: ['team@example.com'], active: false });
      expect(catalog.primaryAccountId).toBe(B);
    });

    it('given an update for an unknown account folded, then the catalog is unchanged', () => {
      const before = fold(twoAccounts);
      const after = accountCatalogDecider.evolve(before, updated({ accountId: C, active: false }));
      expect(after).toBe(before);
    });
  });
});

describe('matchActiveAccount', () => {
  const catalog = fold(twoAccounts);

  it('matches an account email exactly', () => {
    expect(matchActiveAccount(catalog, 'bob@example.com')).toEqual({ accountId: B, email: 'bob@example.com' });
  });

  it('matches an account email ignoring case, returning the email as stored', () => {
    expect(matchActiveAccount(catalog, 'BOB@EXAMPLE.COM')).toEqual({ accountId: B, email: 'bob@example.com' });
  });

  it('matches a synced alias ignoring case, returning the alias as stored (not the account email)', () => {
    expect(matchActiveAccount(catalog, 'sales@example.com')).toEqual({ accountId: B, email: 'Sales@Example.com' });
    expect(matchActiveAccount(catalog, 'OPS@EXAMPLE.COM')).toEqual({ accountId: A, email: 'ops@example.com' });
  });

  it.each([' bob@example.com', 'bob@example.com ', '\tbob@example.com', 'bob@example.com\n'])(
    'does not trim: %j does not match',
    (address) => {
      expect(matchActiveAccount(catalog, address)).toBeUndefined();
    },
  );

  it.each(['bob@example', 'bob', 'example.com', '', 'bob@example.com.evil', 'xbob@example.com'])(
    'needs the whole address: %j does not match',
    (address) => {
      expect(matchActiveAccount(catalog, address)).toBeUndefined();
    },
  );

  it('never matches an inactive account, by email or alias', () => {
    const withInactive = fold([...twoAccounts, updated({ accountId: B, active: false })]);
    expect(matchActiveAccount(withInactive, 'bob@example.com')).toBeUndefined();
    expect(matchActiveAccount(withInactive, 'Sales@Example.com')).toBeUndefined();
    expect(matchActiveAccount(withInactive, 'alice@example.com')).toEqual({ accountId: A, email: 'alice@example.com' });
  });

  it('matches again once the account is reactivated', () => {
    const reactivated = fold([...twoAccounts, updated({ accountId: B, active: false }), updated({ accountId: B, active: true })]);
    expect(matchActiveAccount(reactivated, 'bob@example.com')).toEqual({ accountId: B, email: 'bob@example.com' });
  });

  it('does not match a removed alias', () => {
    const changed = fold([...twoAccounts, updated({ accountId: B, aliases: [] })]);
    expect(matchActiveAccount(changed, 'sales@example.com')).toBeUndefined();
  });

  it('finds nothing in an empty catalog', () => {
    expect(matchActiveAccount(initialAccountCatalog(), 'bob@example.com')).toBeUndefined();
  });
});
