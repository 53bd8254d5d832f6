import { createHash } from 'node:crypto';

/**
 * Advisory lock keys are database-wide, while a deployment is a schema: keys are derived from
 * the schema name so that two deployments sharing a database never wait for each other, and the
 * replicas of one deployment agree on them (a constant of the schema, as a signed int8 in decimal).
 */
export type LockPurpose = 'projector-lease' | 'commit';

export function schemaLockKey(purpose: LockPurpose, schema: string): string {
  return createHash('sha256').update(`wts.read-models.${purpose}:${schema}`).digest().readBigInt64BE(0).toString();
}
