import { EventStoreUnavailableError } from '@wts/event-store';
import { dispatchConsumerFailure } from './dispatch-failure.filter';

describe('dispatch failures on the Kafka path', () => {
  it('retries in place while the store is unavailable', () => {
    expect(dispatchConsumerFailure(new EventStoreUnavailableError('busy'))).toMatchObject({
      disposition: 'retry',
      code: 'store_unavailable',
    });
  });

  it('parks (after a few attempts) anything retrying will not fix', () => {
    expect(dispatchConsumerFailure(new TypeError('undefined is not a function'))).toMatchObject({
      disposition: 'park',
      code: 'dispatch_failed',
      message: 'TypeError: undefined is not a function',
    });
  });
});
