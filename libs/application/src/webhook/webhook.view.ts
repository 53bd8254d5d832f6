import type { VerificationScheme } from '@wts/contracts';
import { judgeRoutineSafety, type ConfiguredWebhook, type RoutineState } from '@wts/domain';

export interface WebhookView {
  readonly state: 'not_configured' | 'enabled' | 'disabled';
  readonly webhook_id: string | null;
  readonly url: string | null;
  readonly default_account: string | null;
  readonly account_override_allowed: boolean;
  /** How deliveries authenticate (never the secret). Null until the webhook is first enabled. */
  readonly verification: { readonly scheme: VerificationScheme } | null;
  readonly blocked: boolean;
  readonly blocked_reason: string | null;
  /** How to make the routine safer, when blocked. */
  readonly blocked_remedy: string | null;
}

export function webhookUrl(publicBaseUrl: string, webhookId: string): string {
  return `${publicBaseUrl}/workflow-webhooks/${webhookId}`;
}

/**
 * Never carries the secret. Blocked is judged on the routine as it is now (the Blocked and
 * Unblocked events are the audit trail), so making the routine safer lifts it at once.
 */
export function toWebhookView(publicBaseUrl: string, routine: RoutineState, webhook: ConfiguredWebhook | undefined): WebhookView {
  const safety = judgeRoutineSafety(routine);
  const block = {
    blocked: safety.blocked,
    blocked_reason: safety.blocked ? safety.reason : null,
    blocked_remedy: safety.blocked ? safety.remedy : null,
  };
  if (!webhook) {
    return {
      state: 'not_configured',
      webhook_id: null,
      url: null,
      default_account: null,
      account_override_allowed: false,
      verification: null,
      ...block,
    };
  }
  return {
    state: webhook.status,
    webhook_id: webhook.webhookId,
    url: webhookUrl(publicBaseUrl, webhook.webhookId),
    default_account: webhook.defaultAccount.email,
    account_override_allowed: webhook.accountOverrideAllowed,
    verification: { scheme: webhook.scheme },
    ...block,
  };
}
