import type { TriggerWebhookRequest } from './trigger-webhook.request';

/**
 * Headers that carry credentials: a filter never sees them (a filter is saved by operators and
 * recorded on the audit trail; the webhook's own secret has no business in it).
 */
const HIDDEN = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** The request's headers as a filter sees them: lower-case names, one string each, no credentials. */
export function filterHeaders(command: Pick<TriggerWebhookRequest, 'headers'>): Record<string, string> {
  const visible: Record<string, string> = {};
  for (const [name, value] of Object.entries(command.headers?.() ?? {})) {
    if (!HIDDEN.has(name)) visible[name] = value;
  }
  return visible;
}
