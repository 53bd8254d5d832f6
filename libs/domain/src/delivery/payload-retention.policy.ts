/** The fewest and most days a webhook may keep its deliveries' payloads (DESIGN: 1–3650). */
export const PAYLOAD_RETENTION_DAYS = { min: 1, max: 3650 } as const;

const DAY_MS = 86_400_000;

/**
 * When a payload received `now` is removed as expired: after its webhook's retention when it has
 * one, else after the service's default. Fixed at acceptance: a retention changed later applies to
 * the deliveries received from then on (to remove older payloads sooner, erase them).
 */
export function payloadExpiry(now: Date, webhookRetentionDays: number | null, defaultRetentionSeconds: number): string {
  const retentionMs = webhookRetentionDays === null ? defaultRetentionSeconds * 1000 : webhookRetentionDays * DAY_MS;
  return new Date(now.getTime() + retentionMs).toISOString();
}
