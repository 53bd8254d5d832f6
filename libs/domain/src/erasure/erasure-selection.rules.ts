import type { ErasureSelection } from '@wts/contracts';
import { createHash } from 'node:crypto';
import { isWellFormedId } from '../ids/id.factory';
import { isRfc3339DateTime } from '../shared/date-time.rules';

/** The bounds of an erasure request (DESIGN.md, "Data lifecycle"). */
export const ERASURE_LIMITS = {
  /** delivery_ids: at most this many (the payload store's own bound on one removal). */
  maxDeliveryIds: 1000,
  /** contains: this many characters at least (shorter would match nearly everything)… */
  containsMin: 3,
  /** …and at most this many. */
  containsMax: 512,
  /** trigger_account: an email address is at most this long. */
  maxEmail: 254,
} as const;

/** An erasure's selectors as asked for (HTTP body or command-line flags); absent means "not selected on". */
export interface ErasureSelectors {
  readonly deliveryIds?: readonly string[];
  readonly routineId?: string;
  readonly triggerAccount?: string;
  readonly receivedAfter?: string;
  readonly receivedBefore?: string;
  readonly contains?: string;
}

/** A valid request, normalised: what is recorded, and the search string the job needs (never recorded in an event). */
export interface ErasureCriteria {
  /** As recorded in ErasureRequested: ids deduplicated, the email lower-cased, times in UTC, `contains` as its digest only. */
  readonly selection: ErasureSelection;
  /** `contains` lower-cased (the needle the payloads are searched for); absent without `contains`. */
  readonly needle?: string;
}

export type ErasureValidation =
  { readonly kind: 'valid'; readonly criteria: ErasureCriteria } | { readonly kind: 'invalid'; readonly problems: readonly string[] };

/** One character of text as a person counts it: a code point (an emoji is one, not two). */
const characters = (text: string): number => [...text].length;

/** Deliberately loose: the address is only compared with recorded ones, so "something@something" is enough to be one. */
const EMAIL = /^[^\s@]+@[^\s@]+$/u;

/** The search string's fold: what is matched and what its digest is taken of. */
export function containsNeedle(contains: string): string {
  return contains.toLowerCase();
}

/** The SHA-256 (hex) of the lower-cased search string: what the audit trail keeps instead of it. */
export function containsDigest(contains: string): string {
  return createHash('sha256').update(containsNeedle(contains), 'utf8').digest('hex');
}

/** Whether a payload's text contains the needle (compared lower-cased, as the store's scan does). */
export function payloadMatches(text: string, needle: string): boolean {
  return text.toLowerCase().includes(needle);
}

/**
 * Checks an erasure request and normalises it. Selectors intersect, so an empty selection (which
 * would erase everything) is refused; each problem names its field the way the HTTP body does.
 * Times are kept to the millisecond in UTC (the precision deliveries are recorded with).
 */
export function validateErasureSelectors(input: ErasureSelectors): ErasureValidation {
  const problems: string[] = [];
  const selection: { -readonly [K in keyof ErasureSelection]: ErasureSelection[K] } = {};
  let needle: string | undefined;

  if (input.deliveryIds !== undefined) {
    const ids = input.deliveryIds;
    if (ids.length === 0) problems.push('delivery_ids must name at least one delivery');
    else if (ids.length > ERASURE_LIMITS.maxDeliveryIds)
      problems.push(`delivery_ids names at most ${ERASURE_LIMITS.maxDeliveryIds} deliveries`);
    else if (!ids.every((id) => typeof id === 'string' && isWellFormedId('delivery', id)))
      problems.push('each of delivery_ids must be a delivery id (dlv_…)');
    else selection.deliveryIds = [...new Set(ids)];
  }
  if (input.routineId !== undefined) {
    if (isWellFormedId('routine', input.routineId)) selection.routineId = input.routineId;
    else problems.push('routine_id must be a routine id (rtn_…)');
  }
  if (input.triggerAccount !== undefined) {
    const email = input.triggerAccount;
    if (email.length <= ERASURE_LIMITS.maxEmail && EMAIL.test(email)) selection.triggerAccount = email.toLowerCase();
    else problems.push('trigger_account must be an email address');
  }
  const after = time(input.receivedAfter, 'received_after', problems);
  const before = time(input.receivedBefore, 'received_before', problems);
  if (after !== undefined) selection.receivedAfter = after.toISOString();
  if (before !== undefined) selection.receivedBefore = before.toISOString();
  if (after !== undefined && before !== undefined && after.getTime() >= before.getTime())
    problems.push('received_after must be earlier than received_before');
  if (input.contains !== undefined) {
    const length = characters(input.contains);
    if (length < ERASURE_LIMITS.containsMin || length > ERASURE_LIMITS.containsMax)
      problems.push(`contains must be ${ERASURE_LIMITS.containsMin}–${ERASURE_LIMITS.containsMax} characters`);
    else {
      needle = containsNeedle(input.contains);
      selection.containsDigest = containsDigest(input.contains);
    }
  }

  const given = Object.values(input).some((value) => value !== undefined);
  if (!given)
    problems.push(
      'select at least one of delivery_ids, routine_id, trigger_account, received_after, received_before, contains (an empty selection would erase everything)',
    );
  if (problems.length > 0) return { kind: 'invalid', problems };
  return { kind: 'valid', criteria: needle === undefined ? { selection } : { selection, needle } };
}

/** Whether the selection names anything the read model selects on (else only `contains`: the store is scanned). */
export function selectsFromReadModel(selection: ErasureSelection): boolean {
  return (
    selection.deliveryIds !== undefined ||
    selection.routineId !== undefined ||
    selection.triggerAccount !== undefined ||
    selection.receivedAfter !== undefined ||
    selection.receivedBefore !== undefined
  );
}

function time(value: string | undefined, field: string, problems: string[]): Date | undefined {
  if (value === undefined) return undefined;
  if (isRfc3339DateTime(value)) return new Date(value);
  problems.push(`${field} must be an RFC 3339 date-time with seconds and an offset, e.g. 2026-11-27T18:00:00Z`);
  return undefined;
}
