import type { ErasureSelection, OperatorActionRecorded, ServiceEvent, WebhookReleased } from '@wts/contracts';
import { ruleDigest } from '@wts/domain';
import type { RecordedEvent } from '@wts/event-store';
import type { AuditActor, AuditRow } from '@wts/read-models';
import { traceIdOf } from '../shared/trace-context';

/** The longest detail an audit entry keeps (characters; a longer one is cut and ends with "…"). */
export const MAX_AUDIT_DETAIL_CHARS = 500;

/** What an admin write did, as its event says; the envelope (id, time, actor, trace) comes from the stored event. */
export type AuditFacts = Pick<AuditRow, 'action' | 'targetType' | 'targetId' | 'routineId' | 'webhookId' | 'detail'> & {
  /** The event's own timestamp field (rotatedAt, issuedAt…). */
  readonly occurredAt: string;
};

/** What a command-line operation acts on, as the audit trail names it (one this build does not know: the event store). */
function operatorActionTarget(action: OperatorActionRecorded['data']['action']): string {
  switch (action) {
    case 'rebuild_read_models':
      return 'read_models';
    case 'rotate_encryption_key':
      return 'signing_secrets';
    case 'redispatch_parked':
      return 'parked';
    default:
      return 'event_store';
  }
}

/**
 * The audit facts of an admin write; undefined for events that are not one (traffic, runs, parks,
 * the webhook id claim). Never a secret: digests and keys are left out.
 */
export function auditFactsOf(event: ServiceEvent): AuditFacts | undefined {
  switch (event.type) {
    case 'AccountConnected':
      return onAccount('account.connect', event.data.accountId, event.data.connectedAt);
    case 'AccountUpdated':
      return onAccount('account.update', event.data.accountId, event.data.updatedAt);
    case 'PrimaryAccountChanged':
      return onAccount('account.set_primary', event.data.accountId, event.data.changedAt);
    case 'RoutineCreated':
      return onRoutine('routine.create', event.data.routineId, event.data.createdAt);
    case 'RoutineUpdated':
      return onRoutine('routine.update', event.data.routineId, event.data.updatedAt);
    case 'WebhookEnabled':
      return {
        ...onWebhook('webhook.enable', event.data.webhookId, event.data.enabledAt),
        routineId: event.data.routineId,
        detail: schemeDetail(event.data.verification),
      };
    case 'SecretRotated':
      return { ...onWebhook('webhook.rotate', event.data.webhookId, event.data.rotatedAt), detail: schemeDetail(event.data.verification) };
    case 'WebhookDisabled':
      return onWebhook('webhook.disable', event.data.webhookId, event.data.disabledAt);
    case 'WebhookBlocked':
      return { ...onWebhook('webhook.block', event.data.webhookId, event.data.blockedAt), detail: boundedText(event.data.reason) };
    case 'WebhookUnblocked':
      return onWebhook('webhook.unblock', event.data.webhookId, event.data.unblockedAt);
    case 'WebhookHeld':
      return {
        ...onWebhook('webhook.hold', event.data.webhookId, event.data.heldAt),
        detail: event.data.releaseAt === null ? null : bounded(`release at ${event.data.releaseAt}`),
      };
    case 'WebhookReleased':
      return { ...onWebhook('webhook.release', event.data.webhookId, event.data.releasedAt), detail: releaseDetail(event.data) };
    case 'WebhookRetentionChanged': {
      const days = event.data.payloadRetentionDays;
      const detail = days === null ? 'payload retention default' : `payload retention ${days} ${days === 1 ? 'day' : 'days'}`;
      return { ...onWebhook('webhook.retention', event.data.webhookId, event.data.changedAt), detail };
    }
    case 'WebhookFilterChanged': {
      const { filter, webhookId, changedAt } = event.data;
      return {
        ...onWebhook('webhook.filter', webhookId, changedAt),
        detail: filter === null ? 'filter removed' : bounded(`filter ${filter}`),
      };
    }
    case 'WebhookPayloadSchemaChanged': {
      const { payloadSchema, webhookId, changedAt } = event.data;
      const detail = payloadSchema === null ? 'payload schema removed' : `payload schema sha256:${ruleDigest(payloadSchema)}`;
      return { ...onWebhook('webhook.payload_schema', webhookId, changedAt), detail };
    }
    case 'ApiKeyIssued': {
      const { keyId, role, name, issuedAt } = event.data;
      return { ...onApiKey('api_key.issue', keyId, issuedAt), detail: bounded(`role ${role}, name ${JSON.stringify(name)}`) };
    }
    case 'ApiKeyRevoked':
      return onApiKey('api_key.revoke', event.data.keyId, event.data.revokedAt);
    case 'OperatorActionRecorded': {
      const { action, detail, at } = event.data;
      const targetType = operatorActionTarget(action);
      return { action, targetType, targetId: null, routineId: null, webhookId: null, detail: renderDetail(detail), occurredAt: at };
    }
    case 'ErasureRequested': {
      const { erasureId, selection, requestedAt } = event.data;
      return {
        action: 'erase_payloads',
        targetType: 'erasure',
        targetId: erasureId,
        routineId: selection.routineId ?? null,
        webhookId: null,
        detail: erasureDetail(selection),
        occurredAt: requestedAt,
      };
    }
    case 'RunWithheld':
    case 'PayloadsRemoved':
    case 'ErasureProgressed':
    case 'ErasureFinished':
    case 'WebhookIdAssigned':
    case 'SigningSecretSealed':
    case 'SigningSecretResealed':
    case 'DeliveryAccepted':
    case 'DeliveryFiltered':
    case 'IdempotencyGenerationAdvanced':
    case 'RunCreated':
    case 'DispatchParked':
      return undefined;
    default:
      return notAnAdminWrite(event);
  }
}

/** What an erasure selected; the search string only as its digest (it is the data subject's data). */
function erasureDetail(selection: ErasureSelection): string {
  const parts = [
    selection.deliveryIds ? `${selection.deliveryIds.length} delivery ids` : null,
    selection.routineId ? `routine ${selection.routineId}` : null,
    selection.triggerAccount ? `trigger account ${selection.triggerAccount}` : null,
    selection.receivedAfter ? `received after ${selection.receivedAfter}` : null,
    selection.receivedBefore ? `received before ${selection.receivedBefore}` : null,
    selection.containsDigest ? `contains sha256:${selection.containsDigest}` : null,
  ];
  return bounded(parts.filter((part) => part !== null).join(', '));
}

/** A release says whether it expired or discarded what the hold kept, and how many were waiting (as the operator was shown). */
function releaseDetail(release: WebhookReleased['data']): string | null {
  const waiting = release.heldDeliveries === undefined ? null : `${release.heldDeliveries} held deliveries`;
  if (release.discard) return waiting ? `discarded ${waiting}` : 'discarded the held deliveries';
  if (release.expired) return 'expired';
  return waiting;
}

/** An enable's or rotation's detail names a signed scheme (bearer, the default, needs none). */
function schemeDetail(verification: { readonly scheme: string } | undefined): string | null {
  return verification ? `verification ${verification.scheme}` : null;
}

/** Every known type is listed above (a new one fails to compile here); a type this build does not know is no audit entry. */
function notAnAdminWrite(_event: never): undefined {
  return undefined;
}

/** The audit entry of an admin write stored as `recorded`: its id is the event's, so projecting it twice is harmless. */
export function auditEntry(recorded: RecordedEvent, facts: AuditFacts): AuditRow {
  const metadata = asRecord(recorded.metadata);
  return {
    entryId: recorded.id,
    at: isoTime(facts.occurredAt) ?? recorded.createdAt.toISOString(),
    actor: actorOf(metadata?.actor),
    action: facts.action,
    targetType: facts.targetType,
    targetId: facts.targetId,
    routineId: facts.routineId,
    webhookId: facts.webhookId,
    outcome: 'succeeded',
    traceId: traceIdOf(metadata?.traceparent),
    detail: facts.detail,
    // An event does not keep where its request came from.
    sourceAddress: null,
  };
}

/**
 * The metadata's actor when it is well formed (metadata is stored JSON: checked, never cast); null
 * otherwise. An actor stored before `displayVerified` existed: an OIDC display is not verified (it
 * may be an unverified email or a username), a key's name or the bootstrap's display is.
 */
export function actorOf(value: unknown): AuditActor | null {
  const actor = asRecord(value);
  if (!actor) return null;
  const { kind, subject, display, displayVerified } = actor;
  if (kind !== 'oidc' && kind !== 'api_key' && kind !== 'bootstrap') return null;
  if (typeof subject !== 'string' || subject === '' || typeof display !== 'string') return null;
  return { kind, subject, display, displayVerified: typeof displayVerified === 'boolean' ? displayVerified : kind !== 'oidc' };
}

/** `k=v` pairs separated by spaces; a value with a space, quote or `=` (or an empty one) is JSON-quoted. Bounded. */
export function renderDetail(detail: unknown): string | null {
  const fields = asRecord(detail);
  if (!fields) return null;
  const pairs = Object.entries(fields).map(([key, value]) => `${plain(key)}=${plain(value)}`);
  return pairs.length === 0 ? null : bounded(pairs.join(' '));
}

function plain(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return JSON.stringify(value) ?? String(value);
}

function boundedText(value: unknown): string | null {
  return typeof value === 'string' ? bounded(value) : null;
}

/** At most MAX_AUDIT_DETAIL_CHARS characters (code points: a cut never splits one). */
function bounded(text: string): string {
  const chars = Array.from(text);
  return chars.length <= MAX_AUDIT_DETAIL_CHARS ? text : `${chars.slice(0, MAX_AUDIT_DETAIL_CHARS - 1).join('')}…`;
}

/** The same instant in one form (toISOString), so that entries sort by time as text; undefined when it is not a time. */
function isoTime(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function onAccount(action: string, accountId: string | null, occurredAt: string): AuditFacts {
  return { action, targetType: 'account', targetId: accountId, routineId: null, webhookId: null, detail: null, occurredAt };
}

function onRoutine(action: string, routineId: string, occurredAt: string): AuditFacts {
  return { action, targetType: 'routine', targetId: routineId, routineId, webhookId: null, detail: null, occurredAt };
}

/** The routine is left to the read model (from the webhook's mapping): later webhook events do not name it. */
function onWebhook(action: string, webhookId: string, occurredAt: string): AuditFacts {
  return { action, targetType: 'webhook', targetId: webhookId, routineId: null, webhookId, detail: null, occurredAt };
}

function onApiKey(action: string, keyId: string, occurredAt: string): AuditFacts {
  return { action, targetType: 'api_key', targetId: keyId, routineId: null, webhookId: null, detail: null, occurredAt };
}
