/** The failures a dispatch can meet and how the dispatch failure policy classifies each: its spec and the Kafka filter's run the same cases. */
import { EventStoreUnavailableError } from '@wts/event-store';

export interface DispatchFailureCase {
  readonly given: string;
  readonly thrown: unknown;
  readonly kind: 'transient' | 'deterministic';
  readonly code: string;
  readonly message: string;
}

export const DISPATCH_FAILURE_CASES: readonly DispatchFailureCase[] = [
  {
    given: 'the store is unavailable',
    thrown: new EventStoreUnavailableError('busy'),
    kind: 'transient',
    code: 'store_unavailable',
    message: 'EventStoreUnavailableError: busy',
  },
  {
    given: 'any other error',
    thrown: new TypeError('undefined is not a function'),
    kind: 'deterministic',
    code: 'dispatch_failed',
    message: 'TypeError: undefined is not a function',
  },
  { given: 'something thrown that is not an Error', thrown: 'boom', kind: 'deterministic', code: 'dispatch_failed', message: 'boom' },
];
