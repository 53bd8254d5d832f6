import type { AccountCatalogEvent, TriggerAccount } from '@wts/contracts';
import { assertNever } from '@wts/contracts';
import { accept, reject, type Decider, type Decision } from '../shared/decision';

export interface Account {
  readonly accountId: string;
  readonly email: string;
  readonly aliases: readonly string[];
  readonly active: boolean;
}

export interface AccountCatalog {
  readonly accounts: ReadonlyMap<string, Account>;
  readonly primaryAccountId: string | null;
}

export type AccountCatalogCommand =
  | {
      readonly type: 'ConnectAccount';
      readonly accountId: string;
      readonly email: string;
      readonly aliases: readonly string[];
      /** Absent: primary when the catalog has no primary yet. */
      readonly primary?: boolean;
      readonly now: string;
    }
  | {
      readonly type: 'UpdateAccount';
      readonly accountId: string;
      readonly aliases?: readonly string[];
      readonly active?: boolean;
      readonly primary?: boolean;
      readonly now: string;
    };

export const initialAccountCatalog = (): AccountCatalog => ({ accounts: new Map(), primaryAccountId: null });

const fold = (address: string): string => address.toLowerCase();

/** Addresses (emails and aliases) already taken, folded, excluding one account. */
function takenAddresses(catalog: AccountCatalog, exceptAccountId?: string): Set<string> {
  const taken = new Set<string>();
  for (const account of catalog.accounts.values()) {
    if (account.accountId === exceptAccountId) continue;
    taken.add(fold(account.email));
    for (const alias of account.aliases) taken.add(fold(alias));
  }
  return taken;
}

function firstClash(addresses: readonly string[], taken: Set<string>): string | undefined {
  const seen = new Set<string>();
  for (const address of addresses) {
    const folded = fold(address);
    if (taken.has(folded) || seen.has(folded)) return address;
    seen.add(folded);
  }
  return undefined;
}

function primaryChange(catalog: AccountCatalog, accountId: string, primary: boolean | undefined, now: string): AccountCatalogEvent[] {
  if (primary === undefined) return [];
  const isPrimary = catalog.primaryAccountId === accountId;
  if (primary === isPrimary) return [];
  return [
    {
      type: 'PrimaryAccountChanged',
      data: { accountId: primary ? accountId : null, previousAccountId: catalog.primaryAccountId, changedAt: now },
    },
  ];
}

export function decideAccountCatalog(command: AccountCatalogCommand, catalog: AccountCatalog): Decision<AccountCatalogEvent> {
  switch (command.type) {
    case 'ConnectAccount': {
      if (catalog.accounts.has(command.accountId)) return reject('validation_failed', 'account id already used');
      const clash = firstClash([command.email, ...command.aliases], takenAddresses(catalog));
      if (clash !== undefined) return reject('email_already_connected', `the address ${clash} is already connected`);
      const primary = command.primary ?? catalog.primaryAccountId === null;
      const connected: AccountCatalogEvent = {
        type: 'AccountConnected',
        data: { accountId: command.accountId, email: command.email, aliases: [...command.aliases], connectedAt: command.now },
      };
      const withAccount = evolveAccountCatalog(catalog, connected);
      return accept(connected, ...primaryChange(withAccount, command.accountId, primary, command.now));
    }
    case 'UpdateAccount': {
      const account = catalog.accounts.get(command.accountId);
      if (!account) return reject('unknown_account', `no account ${command.accountId}`);
      const events: AccountCatalogEvent[] = [];
      const aliasesChanged = command.aliases !== undefined && !sameList(command.aliases, account.aliases);
      const activeChanged = command.active !== undefined && command.active !== account.active;
      if (aliasesChanged && command.aliases) {
        const clash = firstClash([account.email, ...command.aliases], takenAddresses(catalog, account.accountId));
        if (clash !== undefined) return reject('email_already_connected', `the address ${clash} is already connected`);
      }
      if (aliasesChanged || activeChanged) {
        events.push({
          type: 'AccountUpdated',
          data: {
            accountId: account.accountId,
            ...(aliasesChanged && command.aliases ? { aliases: [...command.aliases] } : {}),
            ...(activeChanged ? { active: command.active } : {}),
            updatedAt: command.now,
          },
        });
      }
      events.push(...primaryChange(catalog, account.accountId, command.primary, command.now));
      return accept(...events);
    }
    default:
      return assertNever(command);
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

export function evolveAccountCatalog(catalog: AccountCatalog, event: AccountCatalogEvent): AccountCatalog {
  switch (event.type) {
    case 'AccountConnected': {
      const accounts = new Map(catalog.accounts);
      accounts.set(event.data.accountId, {
        accountId: event.data.accountId,
        email: event.data.email,
        aliases: event.data.aliases,
        active: true,
      });
      return { ...catalog, accounts };
    }
    case 'AccountUpdated': {
      const current = catalog.accounts.get(event.data.accountId);
      if (!current) return catalog;
      const accounts = new Map(catalog.accounts);
      accounts.set(current.accountId, {
        ...current,
        aliases: event.data.aliases ?? current.aliases,
        active: event.data.active ?? current.active,
      });
      return { ...catalog, accounts };
    }
    case 'PrimaryAccountChanged':
      return { ...catalog, primaryAccountId: event.data.accountId };
    default:
      return assertNever(event);
  }
}

export const accountCatalogDecider: Decider<AccountCatalogCommand, AccountCatalogEvent, AccountCatalog> = {
  decide: decideAccountCatalog,
  evolve: evolveAccountCatalog,
  initialState: initialAccountCatalog,
};

/**
 * Finds the active account whose email or synced alias equals `address` exactly, ignoring case.
 * The returned email is the address that matched (the account's own or the alias), as stored.
 */
export function matchActiveAccount(catalog: AccountCatalog, address: string): TriggerAccount | undefined {
  const wanted = fold(address);
  for (const account of catalog.accounts.values()) {
    if (!account.active) continue;
    if (fold(account.email) === wanted) return { accountId: account.accountId, email: account.email };
    const alias = account.aliases.find((candidate) => fold(candidate) === wanted);
    if (alias !== undefined) return { accountId: account.accountId, email: alias };
  }
  return undefined;
}
