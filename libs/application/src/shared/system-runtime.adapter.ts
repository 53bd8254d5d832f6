import { randomFillSync } from 'node:crypto';
import { v7 as uuidV7 } from 'uuid';
import type { Clock, RandomSource } from './runtime.port';

export const systemClock: Clock = { now: () => new Date() };

/** Random bytes drawn from one pool refilled 4 KiB at a time: one call into the kernel's CSPRNG per ~100 requests, not several per request. */
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let used = POOL_BYTES;

function randomBytesFromPool(count: number): Buffer {
  if (count > POOL_BYTES) return randomFillSync(Buffer.allocUnsafe(count));
  if (used + count > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  // A copy: the pool's bytes are handed out once and never again.
  const bytes = Buffer.from(pool.subarray(used, used + count));
  pool.fill(0, used, used + count);
  used += count;
  return bytes;
}

export const cryptoRandom: RandomSource = {
  bytes: randomBytesFromPool,
  // Version 7 (RFC 9562): time-ordered, so event ids made together sit together in the store's
  // event-id index (one page written per commit, not one per event); 74 random bits each.
  uuid: () => uuidV7(),
};
