/// <reference types="jest" />
import { ReadModelUnavailableError } from '../read-model.port';
import type { Context } from './contract.fixtures';

/** Health, the lease as seen by a lone instance, and what a closed store answers. */
export function lifecycleContract(context: Context): void {
  describe('lifecycle', () => {
    it('ping resolves while the database answers', async () => {
      await expect(context().store.ping()).resolves.toBeUndefined();
    });

    it('a lone instance acquires the projector lease, holds it, and no longer holds it once closed', async () => {
      const { subject } = context();
      const store = await subject.openAnother();
      expect(store.holdsProjectorLease()).toBe(false);

      expect(await store.tryAcquireProjectorLease()).toBe(true);
      expect(store.holdsProjectorLease()).toBe(true);
      expect(await store.tryAcquireProjectorLease()).toBe(true);

      await store.close();
      expect(store.holdsProjectorLease()).toBe(false);
    });

    it('a closed store answers ReadModelUnavailableError naming the operation, and close is idempotent', async () => {
      const { subject, ns } = context();
      const store = await subject.openAnother();
      await store.close();
      await store.close();

      await expect(store.ping()).rejects.toThrow(ReadModelUnavailableError);
      await expect(store.loadCheckpoint(`${ns}:projector`)).rejects.toThrow(/loadCheckpoint/);
      await expect(store.deliveries(`${ns}-r`, { limit: 1 })).rejects.toThrow(ReadModelUnavailableError);
      await expect(store.recordReplays([`${ns}-d`])).rejects.toThrow(/recordReplays/);
    });
  });
}
