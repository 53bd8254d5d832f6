import type { Account, AccountCatalog } from '@wts/domain';

export interface AccountView {
  readonly id: string;
  readonly email: string;
  readonly aliases: readonly string[];
  readonly active: boolean;
  readonly primary: boolean;
}

export function toAccountView(account: Account, catalog: AccountCatalog): AccountView {
  return {
    id: account.accountId,
    email: account.email,
    aliases: account.aliases,
    active: account.active,
    primary: catalog.primaryAccountId === account.accountId,
  };
}
