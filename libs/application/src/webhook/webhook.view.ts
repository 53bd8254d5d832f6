import { judgeRoutineSafety, type ConfiguredWebhook, type RoutineState } from '@wts/domain';

export interface WebhookView {
  readonly state: 'not_configured' | 'enabled' | 'disabled';
  readonly webhook_id: string | null;
  readonly url: string | null;
  readonly default_account: string | null;
  readonly account_override_allowed: boolean;
  readonly blocked: boolean;
  readonly blocked_reason: string | null;
  /** How to make the routine safer, when blocked. */
  readonly blocked_remedy: string | null;
}

export function webhookUrl(publicBaseUrl: string, webhookId: string): string {
  return `${publicBaseUrl}/workflow-webhooks/${webhookId}`;
}

/** Never carries the secret. Blocked reflects the routine now, even before the event lands. */
export function toWebhookView(publicBaseUrl: string, routine: RoutineState, webhook: ConfiguredWebhook | undefined): WebhookView {
  const safety = judgeRoutineSafety(routine);
  if (!webhook) {
    return {
      state: 'not_configured',
      webhook_id: null,
      url: null,
      default_account: null,
      account_override_allowed: false,
      blocked: safety.blocked,
      blocked_reason: safety.blocked ? safety.reason : null,
      blocked_remedy: safety.blocked ? safety.remedy : null,
    };
  }
  const blocked = webhook.blocked || safety.blocked;
  return {
    state: webhook.status,
    webhook_id: webhook.webhookId,
    url: webhookUrl(publicBaseUrl, webhook.webhookId),
    default_account: webhook.defaultAccount.email,
    account_override_allowed: webhook.accountOverrideAllowed,
    blocked,
    blocked_reason: blocked ? (safety.blocked ? safety.reason : webhook.blockedReason) : null,
    blocked_remedy: blocked && safety.blocked ? safety.remedy : null,
  };
}
