import type { GlobalPosition } from '@wts/event-store';
import type { WaitingRange } from './read-model.port';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const END: GlobalPosition = { commit: INT64_MAX, prepare: INT64_MAX };

/** A waiting-deliveries query, checked before anything touches a database: both ends int64 pairs (an open end: the largest), the cap a non-negative safe integer. */
export function checkedWaitingRange(range: WaitingRange, cap: number): { after: GlobalPosition; before: GlobalPosition; cap: number } {
  if (!Number.isSafeInteger(cap) || cap < 0) throw new RangeError(`cap must be a non-negative integer, got ${String(cap)}`);
  const before = range.before ?? END;
  for (const position of [range.after, before]) {
    for (const part of [position.commit, position.prepare]) {
      if (typeof part !== 'bigint' || part < INT64_MIN || part > INT64_MAX) {
        throw new RangeError(`position must be a pair of int64 bigints, got ${String(position.commit)}/${String(position.prepare)}`);
      }
    }
  }
  return { after: range.after, before, cap };
}
