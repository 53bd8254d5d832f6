import type { TriggerAccount } from '@wts/contracts';
import fc from 'fast-check';
import {
  accountCatalogDecider,
  matchActiveAccount,
  type AccountCatalog,
  type AccountCatalogCommand,
} from '../catalog/account-catalog.decider';
import { isRejection } from '../shared/decision';
import { resolveTriggerAccount } from './trigger-account.rules';

const RUNS = { numRuns: 1_000, seed: 10_003 };
const NOW = '2024-05-01T12:00:00.000Z';
const IDS = ['acc_A', 'acc_B', 'acc_C', 'acc_D', 'acc_E'];

/** Few local parts and domains, so that clashes, aliases and case variants are frequent. */
const address = fc
  .tuple(
    fc.constantFrom('ops', 'Ops', 'alerts', 'ALERTS', 'bot', 'ci', 'x.y', 'a+b'),
    fc.constantFrom('example.com', 'Example.COM', 'corp.test'),
  )
  .map(([local, domain]) => `${local}@${domain}`);

const command: fc.Arbitrary<AccountCatalogCommand> = fc.oneof(
  fc.record({
    type: fc.constant('ConnectAccount' as const),
    accountId: fc.constantFrom(...IDS),
    email: address,
    aliases: fc.array(address, { maxLength: 3 }),
    primary: fc.option(fc.boolean(), { nil: undefined }),
    now: fc.constant(NOW),
  }),
  fc.record({
    type: fc.constant('UpdateAccount' as const),
    accountId: fc.constantFrom(...IDS),
    aliases: fc.option(fc.array(address, { maxLength: 3 }), { nil: undefined }),
    active: fc.option(fc.boolean(), { nil: undefined }),
    primary: fc.option(fc.boolean(), { nil: undefined }),
    now: fc.constant(NOW),
  }),
);

/** A catalog reached through the decider only, so it holds the invariants the decider keeps. */
const catalog: fc.Arbitrary<AccountCatalog> = fc.array(command, { maxLength: 12 }).map((commands) => {
  let state = accountCatalogDecider.initialState();
  for (const next of commands) {
    const decision = accountCatalogDecider.decide(next, state);
    if (isRejection(decision)) continue;
    for (const event of decision.events) state = accountCatalogDecider.evolve(state, event);
  }
  return state;
});

const addressesOf = (c: AccountCatalog): { accountId: string; address: string; active: boolean }[] =>
  [...c.accounts.values()].flatMap((account) =>
    [account.email, ...account.aliases].map((entry) => ({ accountId: account.accountId, address: entry, active: account.active })),
  );

function flipCase(text: string, mask: readonly boolean[]): string {
  return [...text].map((char, index) => (mask[index % mask.length] ? char.toUpperCase() : char.toLowerCase())).join('');
}

describe('matchActiveAccount — properties', () => {
  it('whatever it returns is an active account and one of that account’s own addresses, equal ignoring case', () => {
    fc.assert(
      fc.property(catalog, fc.oneof(address, fc.string({ maxLength: 20 })), (c, wanted) => {
        const match = matchActiveAccount(c, wanted);
        if (match === undefined) return;
        const account = c.accounts.get(match.accountId);
        expect(account?.active).toBe(true);
        expect([account?.email, ...(account?.aliases ?? [])]).toContain(match.email);
        expect(match.email.toLowerCase()).toBe(wanted.toLowerCase());
      }),
      RUNS,
    );
  });

  it('every address of an active account, in any case, selects that account; of an inactive one, nothing', () => {
    fc.assert(
      fc.property(catalog, fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), (c, mask) => {
        for (const entry of addressesOf(c)) {
          const match = matchActiveAccount(c, flipCase(entry.address, mask));
          if (entry.active) expect(match).toEqual({ accountId: entry.accountId, email: entry.address });
          else expect(match).toBeUndefined();
        }
      }),
      RUNS,
    );
  });
});

describe('resolveTriggerAccount — properties', () => {
  const scope = fc.subarray(IDS);
  const defaultAccount: fc.Arbitrary<TriggerAccount> = fc.record({ accountId: fc.constantFrom(...IDS), email: address });
  /** The resolver asked with what a property drew, in the order the properties draw it. */
  const resolve = (
    c: AccountCatalog,
    routineScope: string[],
    configured: TriggerAccount,
    allowed: boolean,
    selection: string | undefined,
  ) => resolveTriggerAccount({ selection, accountOverrideAllowed: allowed, defaultAccount: configured, routineScope, catalog: c });

  it('never widens the scope: the account is active and in scope, or the request is refused', () => {
    fc.assert(
      fc.property(
        catalog,
        scope,
        defaultAccount,
        fc.boolean(),
        fc.option(address, { nil: undefined }),
        (c, routineScope, configured, allowed, selection) => {
          const result = resolve(c, routineScope, configured, allowed, selection);
          if (isRejection(result)) return;
          expect(routineScope).toContain(result.accountId);
          expect(c.accounts.get(result.accountId)?.active).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it('a selection is refused when the webhook does not allow it, and otherwise is what matchActiveAccount finds or a refusal', () => {
    fc.assert(
      fc.property(catalog, scope, defaultAccount, fc.boolean(), address, (c, routineScope, configured, allowed, selection) => {
        const result = resolve(c, routineScope, configured, allowed, selection);
        if (!allowed) {
          expect(isRejection(result) && result.code).toBe('account_override_not_allowed');
          return;
        }
        const match = matchActiveAccount(c, selection);
        if (match === undefined) expect(isRejection(result) && result.code).toBe('account_not_found');
        else if (!routineScope.includes(match.accountId)) expect(isRejection(result) && result.code).toBe('account_out_of_scope');
        else expect(result).toEqual(match);
      }),
      RUNS,
    );
  });

  it('without a selection: the default account when usable, else the primary when usable, else no_trigger_account', () => {
    fc.assert(
      fc.property(catalog, scope, defaultAccount, (c, routineScope, configured) => {
        const result = resolve(c, routineScope, configured, true, undefined);
        const usable = (id: string | null): boolean => id !== null && c.accounts.get(id)?.active === true && routineScope.includes(id);
        if (usable(configured.accountId)) expect(isRejection(result) || result.accountId).toBe(configured.accountId);
        else if (usable(c.primaryAccountId)) expect(isRejection(result) || result.accountId).toBe(c.primaryAccountId);
        else expect(isRejection(result) && result.code).toBe('no_trigger_account');
      }),
      RUNS,
    );
  });
});
