import type { TriggerAccount } from '@wts/contracts';
import { matchActiveAccount, type AccountCatalog } from '../catalog/account-catalog.decider';
import { reject, type Rejection } from '../shared/decision';

export interface AccountResolutionInput {
  /** The account named by the request, if it named one. */
  readonly selection: string | undefined;
  readonly accountOverrideAllowed: boolean;
  readonly defaultAccount: TriggerAccount;
  readonly routineScope: readonly string[];
  readonly catalog: AccountCatalog;
}

/**
 * Spec rules 7–10, in order: the request's account (when provided and allowed), then the
 * webhook's default account, then the primary connected account — always an active account
 * inside the routine's existing scope, so a selection never widens what the routine can reach.
 */
export function resolveTriggerAccount(input: AccountResolutionInput): TriggerAccount | Rejection {
  const inScope = (accountId: string): boolean => input.routineScope.includes(accountId);
  if (input.selection !== undefined) {
    if (!input.accountOverrideAllowed) {
      return reject('account_override_not_allowed', 'this webhook does not allow the request to select the account');
    }
    const match = matchActiveAccount(input.catalog, input.selection);
    if (!match) return reject('account_not_found', 'the account does not match an active connected account or synced alias');
    if (!inScope(match.accountId)) return reject('account_out_of_scope', "the account is outside the routine's account scope");
    return match;
  }
  const usable = (accountId: string | null): boolean =>
    accountId !== null && input.catalog.accounts.get(accountId)?.active === true && inScope(accountId);

  const configured = input.defaultAccount;
  if (usable(configured.accountId)) {
    const account = input.catalog.accounts.get(configured.accountId);
    const stillNamed = account && (account.email === configured.email || account.aliases.includes(configured.email));
    return stillNamed ? configured : { accountId: configured.accountId, email: account?.email ?? configured.email };
  }
  const primaryId = input.catalog.primaryAccountId;
  if (primaryId !== null && usable(primaryId)) {
    const primary = input.catalog.accounts.get(primaryId);
    if (primary) return { accountId: primary.accountId, email: primary.email };
  }
  return reject(
    'no_trigger_account',
    "neither the webhook's default account nor the primary account is active and inside the routine's scope",
  );
}
