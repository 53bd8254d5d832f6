import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock, RandomSource } from './runtime.ports';

export const systemClock: Clock = { now: () => new Date() };

export const cryptoRandom: RandomSource = {
  bytes: (count) => randomBytes(count),
  uuid: () => randomUUID(),
};
