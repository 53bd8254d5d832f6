import { isWellFormedId, validateErasureSelectors, type ErasureSelectors } from '@wts/domain';
import { UsageError } from './cli.errors';

/** `erase`'s flags as commander hands them over. */
export interface RawEraseOptions {
  readonly deliveryId?: string[];
  readonly routineId?: string;
  readonly triggerAccount?: string;
  readonly receivedAfter?: string;
  readonly receivedBefore?: string;
  readonly contains?: string;
  readonly resume?: string;
  readonly operator?: string;
  readonly json?: boolean;
}

export type ErasePlan =
  | { readonly kind: 'request'; readonly selectors: ErasureSelectors; readonly json: boolean }
  | { readonly kind: 'resume'; readonly erasureId: string; readonly json: boolean };

/**
 * The command line's erasure: the API's selectors as flags, checked by the same domain rules (a
 * problem is a usage error naming the flag), or `--resume` of an erasure left unfinished.
 */
export function parseEraseOptions(options: RawEraseOptions): ErasePlan {
  const json = options.json === true;
  const selectors: ErasureSelectors = {
    deliveryIds: options.deliveryId,
    routineId: options.routineId,
    triggerAccount: options.triggerAccount,
    receivedAfter: options.receivedAfter,
    receivedBefore: options.receivedBefore,
    contains: options.contains,
  };
  const selecting = Object.values(selectors).some((value) => value !== undefined);
  if (options.resume !== undefined) {
    if (selecting) throw new UsageError(['--resume takes no selectors: the erasure keeps its own']);
    if (!isWellFormedId('erasure', options.resume)) throw new UsageError(['--resume must be an erasure id (era_…)']);
    return { kind: 'resume', erasureId: options.resume, json };
  }
  const validation = validateErasureSelectors(selectors);
  if (validation.kind === 'invalid') throw new UsageError(validation.problems.map(asFlag), 'invalid selection');
  return { kind: 'request', selectors, json };
}

/** The API's field names in a problem, as the command line's flags. */
function asFlag(problem: string): string {
  return problem
    .replace(/\bdelivery_ids\b/g, '--delivery-id')
    .replace(/\b(routine_id|trigger_account|received_after|received_before|contains)\b/g, (field) => `--${field.replace(/_/g, '-')}`);
}
