import type { VerificationScheme } from '@wts/contracts';
import {
  judgeRoutineSafety,
  reject,
  retentionBelowKafkaWindow,
  type ConfiguredWebhook,
  type KafkaRetentionWindow,
  type Rejection,
  type RoutineState,
  type WebhookReleaseKind,
} from '@wts/domain';

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
  /** Runs paused: deliveries are accepted (202) and kept, and run in order once released. */
  readonly held: boolean;
  readonly held_since: string | null;
  /** Who held it (the operator's display name). */
  readonly held_by: string | null;
  /** When the service releases the hold by itself; null: only an operator does. */
  readonly release_at: string | null;
  /**
   * Deliveries accepted while the latest hold was in force that have neither a run nor a park yet
   * (while held: all of them; after its release: those the release has still to run, down to 0).
   * At most HELD_DELIVERIES_CAP: a larger backlog shows as that many. Null: never held.
   */
  readonly held_deliveries: number | null;
  /**
   * How the latest hold ended: 'run' (its held deliveries run, in the order they arrived) or
   * 'discard' (each is parked, none runs). While held_deliveries is above 0 after that end, it says
   * what happens to them. Null: never released.
   */
  readonly last_release: WebhookReleaseKind | null;
  /** The webhook's own payload retention in days; null: the service's default (and before the first enable). */
  readonly payload_retention_days: number | null;
  /**
   * How long a payload accepted now is kept (seconds): its days × 86400, or PAYLOAD_RETENTION_SECONDS.
   * Fixed at acceptance: payloads already stored keep the expiry they were given.
   */
  readonly payload_retention_seconds_effective: number;
  /** The routine rules (docs/routine-rules.md): the CEL filter and the JSON Schema payloads must meet; null: none. */
  readonly filter: string | null;
  readonly payload_schema: object | boolean | null;
}

/** What every view is made with: where senders reach the service, and the default payload retention. */
export interface WebhookViewSettings {
  readonly publicBaseUrl: string;
  /** PAYLOAD_RETENTION_SECONDS: what a webhook without its own retention keeps its payloads for. */
  readonly defaultPayloadRetentionSeconds: number;
  /**
   * With Kafka: how long routines.runs.v1 keeps copies of payloads (read at each use: the ingress
   * learns it at start); absent or null without Kafka. A shorter webhook retention is refused.
   */
  readonly kafkaRunsWindow?: () => KafkaRetentionWindow | null;
}

const DAY_SECONDS = 86_400;

/** A webhook retention (days; null: the default) that copies on Kafka would outlive: 400, naming the topic's window. */
export function kafkaRetentionRefusal(
  settings: Pick<WebhookViewSettings, 'kafkaRunsWindow'>,
  days: number | null | undefined,
): Rejection | undefined {
  const problem = retentionBelowKafkaWindow(days ?? null, settings.kafkaRunsWindow?.() ?? null);
  return problem === undefined ? undefined : reject('validation_failed', problem);
}

/** The most held deliveries a view counts (a larger backlog shows as this many): the rows a count reads stay bounded. */
export const HELD_DELIVERIES_CAP = 10_000;

/** The view's parts that need the read models: how many held deliveries still wait. */
export type HeldCount = Pick<WebhookView, 'held_deliveries'>;

export function webhookUrl(publicBaseUrl: string, webhookId: string): string {
  return `${publicBaseUrl}/workflow-webhooks/${webhookId}`;
}

/**
 * Never carries the secret. Blocked is judged on the routine as it is now (the Blocked and
 * Unblocked events are the audit trail), so making the routine safer lifts it at once.
 */
export function toWebhookView(
  settings: WebhookViewSettings,
  routine: RoutineState,
  webhook: ConfiguredWebhook | undefined,
  count: HeldCount = { held_deliveries: null },
): WebhookView {
  const safety = judgeRoutineSafety(routine);
  const block = {
    blocked: safety.blocked,
    blocked_reason: safety.blocked ? safety.reason : null,
    blocked_remedy: safety.blocked ? safety.remedy : null,
  };
  const rules = {
    filter: webhook?.filter ?? null,
    payload_schema: webhook?.payloadSchema ? (JSON.parse(webhook.payloadSchema) as object | boolean) : null,
  };
  const retentionDays = webhook?.payloadRetentionDays ?? null;
  const retention = {
    payload_retention_days: retentionDays,
    payload_retention_seconds_effective: retentionDays === null ? settings.defaultPayloadRetentionSeconds : retentionDays * DAY_SECONDS,
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
      ...NOT_HELD,
      last_release: null,
      ...count,
      ...retention,
      ...rules,
    };
  }
  return {
    state: webhook.status,
    webhook_id: webhook.webhookId,
    url: webhookUrl(settings.publicBaseUrl, webhook.webhookId),
    default_account: webhook.defaultAccount.email,
    account_override_allowed: webhook.accountOverrideAllowed,
    verification: { scheme: webhook.scheme },
    ...block,
    ...(webhook.hold
      ? { held: true, held_since: webhook.hold.since, held_by: webhook.hold.by, release_at: webhook.hold.releaseAt }
      : NOT_HELD),
    last_release: webhook.lastRelease ?? null,
    ...count,
    ...retention,
    ...rules,
  };
}

const NOT_HELD = { held: false, held_since: null, held_by: null, release_at: null } as const;
