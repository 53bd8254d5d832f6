import { ACCOUNT_CATALOG_STREAM } from '@wts/contracts';
import { accountCatalogDecider, idFromBytes, isRejection, reject, type Rejection } from '@wts/domain';
import type { AdminCall } from '../access/admin-call';
import type { UseCaseContext } from '../shared/use-case.context';
import { toAccountView, type AccountView } from './account.view';

export interface ConnectAccountInput {
  readonly email: string;
  readonly aliases?: readonly string[];
  readonly primary?: boolean;
}

export interface UpdateAccountInput {
  readonly aliases?: readonly string[];
  readonly active?: boolean;
  readonly primary?: boolean;
}

/** Connected accounts and their synced aliases: one catalog stream keeps addresses unique. */
export class AccountsService {
  constructor(private readonly context: UseCaseContext) {}

  async connect(input: ConnectAccountInput, call: AdminCall): Promise<AccountView | Rejection> {
    const accountId = idFromBytes('account', this.context.random.bytes(16));
    const result = await this.context.run(
      ACCOUNT_CATALOG_STREAM,
      accountCatalogDecider,
      {
        type: 'ConnectAccount',
        accountId,
        email: input.email,
        aliases: input.aliases ?? [],
        primary: input.primary,
        now: this.context.nowIso(),
      },
      call,
    );
    return isRejection(result) ? result : this.view(accountId);
  }

  async update(accountId: string, input: UpdateAccountInput, call: AdminCall): Promise<AccountView | Rejection> {
    const result = await this.context.run(
      ACCOUNT_CATALOG_STREAM,
      accountCatalogDecider,
      {
        type: 'UpdateAccount',
        accountId,
        ...input,
        now: this.context.nowIso(),
      },
      call,
    );
    return isRejection(result) ? result : this.view(accountId);
  }

  async list(): Promise<AccountView[]> {
    await this.context.fresh([ACCOUNT_CATALOG_STREAM]);
    const catalog = this.context.config.accounts();
    return [...catalog.accounts.values()].map((account) => toAccountView(account, catalog));
  }

  private view(accountId: string): AccountView | Rejection {
    const catalog = this.context.config.accounts();
    const account = catalog.accounts.get(accountId);
    return account ? toAccountView(account, catalog) : reject('unknown_account', `no account ${accountId}`);
  }
}
