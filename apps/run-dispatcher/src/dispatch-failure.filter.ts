import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { EventStoreUnavailableError } from '@wts/event-store';
import type { ConsumerFailure } from '@wts/messaging';
import { throwError, type Observable } from 'rxjs';

/**
 * The dispatcher's errors, mapped once to the consumer's taxonomy: the store being unavailable is
 * transient (retry in place, offset uncommitted); anything else is a bug or bad data that retrying
 * will not fix (parked on the dead-letter topic after a few attempts).
 */
@Catch()
export class DispatchFailureFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => classifyDispatchFailure(exception));
  }
}

export function classifyDispatchFailure(error: unknown): ConsumerFailure {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (error instanceof EventStoreUnavailableError) return { disposition: 'retry', code: 'store_unavailable', message };
  return { disposition: 'park', code: 'dispatch_failed', message };
}
