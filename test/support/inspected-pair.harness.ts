/** Both services from the build on one data directory, an admin client for them, and their store opened to inspect. */
import { SqliteEventStore } from '@wts/event-store';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AdminClient } from './admin-client';
import { startReadyPair, type ReadyPair } from './service-processes';

export interface InspectedPair extends ReadyPair {
  readonly admin: AdminClient;
  readonly store: SqliteEventStore;
}

/**
 * Starts the ingress and the dispatcher on `dataDir` (warnings logged, no rate limit that load
 * could reach, a fresh admin token; `env` on top) once both are ready, and opens their event store.
 */
export async function startInspectedPair(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<InspectedPair> {
  const token = randomBytes(24).toString('base64url');
  const pair = await startReadyPair({
    DATA_DIR: dataDir,
    ADMIN_TOKEN: token,
    LOG_LEVEL: 'warn',
    WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000000',
    ...env,
  });
  return { ...pair, admin: new AdminClient(pair.ingressUrl, token), store: SqliteEventStore.open(join(dataDir, 'events.sqlite')) };
}
