import { isRejection, RejectionError, type Rejection } from '@wts/domain';

/** Use cases return rejections as values; at the HTTP edge they become the filter's problem. */
export function orThrow<T>(result: T | Rejection): T {
  if (isRejection(result)) throw new RejectionError(result);
  return result;
}
