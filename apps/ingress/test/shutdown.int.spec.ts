import { loadConfig } from '@wts/config';
import { SqliteEventStore } from '@wts/event-store';
import { createRateLimiter, openReadModelStore } from '@wts/platform';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIngressApp } from '../src/ingress.factory';

/** Shutting the ingress down releases what it holds: the store, the read models and the limiter's Redis connection. */
describe('ingress shutdown', () => {
  it('closes the Redis rate limiter, the read-model database and the event store', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wts-shutdown-'));
    try {
      const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
      const limiter = createRateLimiter(config, () => undefined);
      let closed = 0;
      const close = limiter.close.bind(limiter);
      const counted = {
        ...limiter,
        close: async () => {
          closed++;
          await close();
        },
      };
      const store = SqliteEventStore.open(join(dataDir, 'events.sqlite'));
      const { readModels } = await openReadModelStore(config);
      const app = await createIngressApp({ config, adminToken: 'admin-token-for-shutdown-test', store, readModels, rateLimiter: counted });
      expect((await limiter.consume('whk_shutdown-test')).allowed).toBe(true);
      await app.close();
      expect(closed).toBe(1);
      await expect(store.ping()).rejects.toThrow();
      await expect(readModels.ping()).rejects.toThrow();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
