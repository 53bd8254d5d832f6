import type Database from 'better-sqlite3';
import { MAX_PAYLOAD_EXPIRY } from '../payload-request.validation';

/**
 * How payload bodies are stored in the event store's file (schema version 4 on: steps 4 and 5 of sqlite-schema.migrations.ts): one table per expiry
 * hour (a bucket), each row keyed by a row id made from the payload's expiry, so that a table is in
 * expiry order and a whole table can be dropped once its hour is past.
 */

/** A payload body table holds the payloads expiring within one hour: dropped whole once that hour is past. */
export const PAYLOAD_BUCKET_MS = 3_600_000;

/** The bucket (expiry hour) of a payload; expiresAt is a non-negative integer (epoch ms). */
export function payloadBucketOf(expiresAt: number): number {
  return Math.floor(expiresAt / PAYLOAD_BUCKET_MS);
}

/** Low bits of a payload row id that tell apart payloads expiring in the same millisecond. */
const ROW_LOW_BITS = 21n;
const ROW_LOW_MASK = (1n << ROW_LOW_BITS) - 1n;
/** A payload's row id: its expiry (at most MAX_PAYLOAD_EXPIRY: 42 bits, shifted by 21, within SQLite's 63), then `low` (any integer, kept to 21 bits). Ordered by expiry. */
export function payloadRowId(expiresAt: number, low: number | bigint): bigint {
  if (!Number.isSafeInteger(expiresAt) || expiresAt < 0 || expiresAt > MAX_PAYLOAD_EXPIRY)
    throw new RangeError(`not a payload expiry: ${expiresAt}`);
  return (BigInt(expiresAt) << ROW_LOW_BITS) | (BigInt(low) & ROW_LOW_MASK);
}

/** The expiry (epoch ms) a row id was made from. */
export function expiryOfRow(rowId: bigint): number {
  return Number(rowId >> ROW_LOW_BITS);
}

/** The highest row id of a payload expiring by `at` (epoch ms). */
export function lastRowExpiringBy(at: number): bigint {
  return payloadRowId(at, ROW_LOW_MASK);
}

/** The bucket a row id's payload lives in. */
export function bucketOfRow(rowId: bigint): number {
  return payloadBucketOf(expiryOfRow(rowId));
}

/** Creates a bucket's body table (format: 0 json, 1 text; removed: 0 or 1, so a removal keeps the row's size). */
export function createPayloadTable(db: Database.Database, bucket: number | bigint): void {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${payloadTable(bucket)} (
       row_id INTEGER PRIMARY KEY, key TEXT NOT NULL, format INTEGER NOT NULL,
       received_at INTEGER NOT NULL, removed INTEGER NOT NULL, body BLOB NOT NULL)`,
  );
}

/** The body table of a bucket: a name built from an integer only, so it is safe to splice into SQL. */
export function payloadTable(bucket: number | bigint): string {
  if (typeof bucket === 'number' && !Number.isSafeInteger(bucket)) throw new RangeError(`not a payload bucket: ${bucket}`);
  if (bucket < 0) throw new RangeError(`not a payload bucket: ${bucket}`);
  return `payloads_${bucket}`;
}
