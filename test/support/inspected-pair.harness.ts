/** Both services from the build on one data directory, an admin client for them, and their store opened to inspect. */
import { SqliteEventStore } from '@wts/event-store';
import { eventually } from '@wts/testing';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AdminClient } from './admin-client';
import { startReadyPair, type ReadyPair, type ServiceProcess } from './service-processes';
import { createdRuns } from './store-inspection';

/** What GET /admin/routines/{id}/webhook and the hold and release calls answer about a hold. */
export interface WebhookAnswer {
  readonly held: boolean;
  readonly held_since: string | null;
  readonly held_by: string | null;
  readonly release_at: string | null;
  readonly held_deliveries: number | null;
}

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

/**
 * Releases the held webhook of `routineId` (answered 200, no longer held) and waits, looking every
 * 5 ms, until the release has made 20 runs: the moment to kill the dispatcher in the middle of it.
 * Answers when it released and how many runs there were by then.
 */
export async function releaseUntilRunsAreMade(
  pair: { readonly admin: AdminClient; readonly store: SqliteEventStore; readonly dispatcher?: ServiceProcess },
  routineId: string,
): Promise<{ releasedAt: number; made: number }> {
  const released = await pair.admin.call<WebhookAnswer>('POST', `/admin/routines/${routineId}/webhook/release`);
  expect(released.status).toBe(200);
  expect(released.body.held).toBe(false);
  const releasedAt = Date.now();
  const made = await eventually(
    async () => {
      const count = (await createdRuns(pair.store, routineId)).length;
      return count >= 20 ? count : undefined;
    },
    30_000,
    'the release to start making runs',
    5,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}; dispatcher output:\n${pair.dispatcher?.tail()}`);
  });
  return { releasedAt, made };
}
