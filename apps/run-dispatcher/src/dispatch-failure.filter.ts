import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { classifyDispatchFailure } from '@wts/application';
import type { ConsumerFailure } from '@wts/messaging';
import { throwError, type Observable } from 'rxjs';

/**
 * The dispatcher's errors, mapped once to the consumer's taxonomy by the application's dispatch
 * failure policy: transient (the store unavailable) is retried in place, offset uncommitted;
 * deterministic is parked on the dead-letter topic after the policy's attempts.
 */
@Catch()
export class DispatchFailureFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => dispatchConsumerFailure(exception));
  }
}

export function dispatchConsumerFailure(error: unknown): ConsumerFailure {
  const { kind, code, message } = classifyDispatchFailure(error);
  return { disposition: kind === 'transient' ? 'retry' : 'park', code, message };
}
