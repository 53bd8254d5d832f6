import { createHash } from 'node:crypto';
import type { WebhookEvent } from '@wts/contracts';
import { accept, reject, type Decision, type Rejection } from '../shared/decision';
import { compileFilter, isFilterProblem } from './delivery-filter.rules';
import { compilePayloadSchema, isSchemaProblem } from './payload-schema.rules';

/**
 * The routine rules of a webhook (DESIGN.md, "Routine rules"): its filter and its payload schema.
 * Absent: unchanged; null: removed. What cannot compile is refused with where it fails, so a rule on
 * the webhook stream always compiles on every replica that folds it.
 */
export interface RulesChange {
  readonly filter?: string | null;
  readonly payloadSchema?: string | null;
}

export interface CurrentRules {
  readonly filter: string | null;
  readonly payloadSchema: string | null;
}

export const NO_RULES: CurrentRules = { filter: null, payloadSchema: null };

/** The rules' problem, if any (a 400 naming the field and where it fails). */
export function rulesProblem(change: RulesChange): Rejection | undefined {
  if (typeof change.filter === 'string') {
    const compiled = compileFilter(change.filter);
    if (isFilterProblem(compiled)) return reject('invalid_filter', `filter: ${compiled.message}`);
  }
  if (typeof change.payloadSchema === 'string') {
    const compiled = compilePayloadSchema(change.payloadSchema);
    if (isSchemaProblem(compiled)) return reject('invalid_payload_schema', `payload_schema: ${compiled.message}`);
  }
  return undefined;
}

/** The events that take `current` to `change` (none for what stays the same). */
export function rulesEvents(webhookId: string, current: CurrentRules, change: RulesChange, now: string): WebhookEvent[] {
  const events: WebhookEvent[] = [];
  if (change.filter !== undefined && change.filter !== current.filter) {
    events.push({ type: 'WebhookFilterChanged', data: { webhookId, filter: change.filter, changedAt: now } });
  }
  if (change.payloadSchema !== undefined && change.payloadSchema !== current.payloadSchema) {
    events.push({ type: 'WebhookPayloadSchemaChanged', data: { webhookId, payloadSchema: change.payloadSchema, changedAt: now } });
  }
  return events;
}

/** An enabled or disabled webhook's rules changed (a disabled one keeps them for when it is enabled again). */
export function decideRulesChange(
  webhook: { readonly webhookId: string } & CurrentRules,
  change: RulesChange,
  now: string,
): Decision<WebhookEvent> {
  const problem = rulesProblem(change);
  if (problem) return problem;
  return accept(...rulesEvents(webhook.webhookId, webhook, change, now));
}

/** SHA-256 (hex) of a rule's text: which version of a filter or schema decided (audit, DeliveryFiltered). */
export function ruleDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
