import { SqliteEventStore } from '@wts/event-store';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stored } from '../../../../test/support/kafka-test-kit';
import { StoredDeliveryReader } from './stored-delivery.reader';

describe('StoredDeliveryReader', () => {
  let dir: string;
  let store: SqliteEventStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wts-delivery-reader-'));
    store = SqliteEventStore.open(join(dir, 'events.sqlite'));
    for (let i = 0; i < 20; i++)
      await store.append(
        `delivery-dlv_${String(i).padStart(20, '0')}`,
        [stored('DeliveryAccepted', { deliveryId: `dlv_${String(i).padStart(20, '0')}` })],
        'no_stream',
      );
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the lookups of one turn go out together as one read, each delivery once; absent ones are undefined', async () => {
    const reads = jest.spyOn(store, 'readFirstEvents');
    const reader = new StoredDeliveryReader(store);
    const ids = [
      ...Array.from({ length: 20 }, (_, i) => `dlv_${String(i).padStart(20, '0')}`),
      'dlv_00000000000000000000',
      'dlv_MISSINGMISSINGMISSING',
    ];
    const found = await Promise.all(ids.map((id) => reader.read(id)));
    expect(found.slice(0, 21).every((event) => event?.type === 'DeliveryAccepted')).toBe(true);
    expect(found[21]).toBeUndefined();
    expect(reads).toHaveBeenCalledTimes(1);
    // 21 distinct deliveries (one asked for twice), as their streams.
    expect(reads.mock.calls[0][0]).toEqual([...new Set(ids)].map((id) => `delivery-${id}`));
    expect((found[0]?.data as { deliveryId: string }).deliveryId).toBe('dlv_00000000000000000000');
    reads.mockRestore();
  });

  it('a read that fails fails every caller waiting on it, and the next turn reads again', async () => {
    const reader = new StoredDeliveryReader(store);
    const reads = jest.spyOn(store, 'readFirstEvents').mockRejectedValueOnce(new Error('store down'));
    const [a, b] = [reader.read('dlv_00000000000000000001'), reader.read('dlv_00000000000000000001')];
    await expect(a).rejects.toThrow('store down');
    await expect(b).rejects.toThrow('store down');
    expect((await reader.read('dlv_00000000000000000001'))?.type).toBe('DeliveryAccepted');
    reads.mockRestore();
  });
});
