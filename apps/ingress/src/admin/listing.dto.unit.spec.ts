import { reject, RejectionError } from '@wts/domain';
import { listingResponse } from './listing.dto';

describe('listingResponse', () => {
  it('given a page, then its items under the key and its cursor as next_cursor', async () => {
    const response = await listingResponse('runs', Promise.resolve({ items: ['a', 'b'], nextCursor: 'c1' }));

    expect(response).toEqual({ runs: ['a', 'b'], next_cursor: 'c1' });
    expect(Object.keys(response)).toEqual(['runs', 'next_cursor']);
  });

  it('given the last page, then next_cursor is null', async () => {
    await expect(listingResponse('parked', Promise.resolve({ items: [], nextCursor: null }))).resolves.toEqual({
      parked: [],
      next_cursor: null,
    });
  });

  it('given a rejection, then it is thrown for the exception filter', async () => {
    const rejection = reject('invalid_cursor', 'not a cursor of this listing');

    const thrown = await listingResponse('runs', Promise.resolve(rejection)).catch((error: unknown) => error);

    expect(thrown).toBeInstanceOf(RejectionError);
    expect((thrown as RejectionError).rejection).toBe(rejection);
  });
});
