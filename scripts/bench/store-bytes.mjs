/* global Buffer */
/**
 * Where the bytes of a stopped service's DATA_DIR go: every file's size, the pages of each table
 * and index of each SQLite file (the `dbstat` virtual table, or only page counts where the build
 * lacks it), the stored size of each event type, and the copies of one delivery's payload in the
 * rows that mention it. Opens the files itself: the services must have stopped.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { REPO } from './bench-kit.mjs';

const require = createRequire(import.meta.url);
const { EMBEDDED_READ_MODEL_FILE } = require(join(REPO, 'dist/libs/platform/src'));
const { READ_MODEL_PROJECTION } = require(join(REPO, 'dist/libs/application/src'));

export const READ_MODEL_FILE = EMBEDDED_READ_MODEL_FILE;

/** Every file under `dir` with its size in bytes, biggest first. */
export function filesUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .map((name) => ({ name: String(name), path: join(dir, String(name)) }))
    .filter((file) => statSync(file.path).isFile())
    .map((file) => ({ name: file.name, bytes: statSync(file.path).size }))
    .sort((a, b) => b.bytes - a.bytes);
}

/** The SQLite files of a DATA_DIR (main files only, not their -wal / -shm). */
export function sqliteFiles(dir) {
  return filesUnder(dir)
    .map((file) => file.name)
    .filter((name) => name.endsWith('.sqlite'))
    .sort();
}

/** Whether the read-model projector's checkpoint has reached the last event of the store. */
export function projectorCaughtUp(dataDir) {
  const events = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
  const readModels = new Database(join(dataDir, READ_MODEL_FILE), { readonly: true });
  try {
    const head = Number(events.prepare('SELECT max(seq) AS head FROM events').get().head ?? 0);
    const row = readModels.prepare('SELECT commit_pos FROM rm_checkpoints WHERE name = ?').get(READ_MODEL_PROJECTION);
    const at = Number(row?.commit_pos ?? 0);
    return { head, at, caught_up: at >= head };
  } finally {
    readModels.close();
    events.close();
  }
}

/** PRAGMA wal_checkpoint(TRUNCATE) on a file: every committed page moved into it, its WAL emptied. */
export function checkpointWal(file) {
  const db = new Database(file);
  try {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)');
    return { busy: result.busy, wal_frames: result.log, checkpointed_frames: result.checkpointed };
  } finally {
    db.close();
  }
}

/**
 * The pages of one SQLite file by table and index (dbstat), with the free pages as one more row;
 * where the build has no dbstat, only the file's page and free-page counts (`method` says which).
 */
export function pageBreakdown(file) {
  const db = new Database(file, { readonly: true });
  try {
    const pageSize = Number(db.pragma('page_size', { simple: true }));
    const pageCount = Number(db.pragma('page_count', { simple: true }));
    const freePages = Number(db.pragma('freelist_count', { simple: true }));
    const summary = { page_size: pageSize, page_count: pageCount, free_pages: freePages, bytes: pageCount * pageSize };
    const options = db.pragma('compile_options').map((row) => row.compile_options);
    if (!options.includes('ENABLE_DBSTAT_VTAB')) return { ...summary, method: 'page_count / freelist_count (no dbstat)', objects: [] };
    const schema = new Map(
      db
        .prepare('SELECT name, type, tbl_name FROM sqlite_schema')
        .all()
        .map((row) => [row.name, row]),
    );
    const objects = db
      .prepare(
        `SELECT name, count(*) AS pages, sum(pgsize) AS bytes, sum(payload) AS payload, sum(unused) AS unused, sum(ncell) AS cells
           FROM dbstat GROUP BY name`,
      )
      .all()
      .map((row) => ({
        name: row.name,
        kind: schema.get(row.name)?.type ?? 'schema',
        table: schema.get(row.name)?.tbl_name ?? row.name,
        pages: row.pages,
        bytes: row.bytes,
        cell_payload_bytes: row.payload,
        unused_bytes: row.unused,
        cells: row.cells,
        ...(schema.get(row.name)?.type === 'index' ? { columns: indexColumns(db, row.name) } : {}),
      }));
    if (freePages > 0) objects.push({ name: '(free pages)', kind: 'free', table: null, pages: freePages, bytes: freePages * pageSize });
    return { ...summary, method: 'dbstat', objects: objects.sort((a, b) => b.bytes - a.bytes) };
  } finally {
    db.close();
  }
}

/** An index's columns (`expression` for one on an expression), so that an autoindex says what it is. */
function indexColumns(db, index) {
  return db.pragma(`index_info("${index}")`).map((column) => column.name ?? 'expression');
}

/** How often the type changes from one event to the next in commit order: rows of one type come in runs. */
export function typeChanges(storeFile) {
  const db = new Database(storeFile, { readonly: true });
  try {
    return db
      .prepare(
        `SELECT count(*) AS rows, sum(type <> previous) AS type_changes
           FROM (SELECT type, lag(type, 1, type) OVER (ORDER BY seq) AS previous FROM events)`,
      )
      .get();
  } finally {
    db.close();
  }
}

/** Per event type of the store: how many, and the mean stored bytes of `data`, `metadata` and all text columns. */
export function eventTypeSizes(storeFile) {
  const db = new Database(storeFile, { readonly: true });
  const bytes = (column) => `length(CAST(${column} AS BLOB))`;
  try {
    return db
      .prepare(
        `SELECT type, count(*) AS events,
                avg(${bytes('data')}) AS data_bytes,
                avg(${bytes('metadata')}) AS metadata_bytes,
                avg(${bytes('data')} + ${bytes('metadata')} + ${bytes('stream_id')} + ${bytes('event_id')} + ${bytes('type')}) AS text_bytes
           FROM events GROUP BY type ORDER BY sum(${bytes('data')} + ${bytes('metadata')}) DESC`,
      )
      .all();
  } finally {
    db.close();
  }
}

/** The `index`-th DeliveryAccepted of the store (in commit order): its delivery and run ids. */
export function sampleDelivery(storeFile, index) {
  const db = new Database(storeFile, { readonly: true });
  try {
    const row = db.prepare("SELECT data FROM events WHERE type = 'DeliveryAccepted' ORDER BY seq LIMIT 1 OFFSET ?").get(index);
    const { deliveryId, runId } = JSON.parse(row.data);
    return { deliveryId, runId };
  } finally {
    db.close();
  }
}

/** Non-overlapping occurrences of `needle` in `haystack` (strings or Buffers). */
export function occurrences(haystack, needle) {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

/** The payload's text as sent, then as written inside one JSON string, then inside two. */
export function payloadForms(payloadJson) {
  const once = JSON.stringify(payloadJson).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [
    { form: 'as sent', text: payloadJson },
    { form: 'JSON-escaped once', text: once },
    { form: 'JSON-escaped twice', text: twice },
  ];
}

/**
 * Every row of every table of each SQLite file that names the delivery or its run, with the copies
 * of the payload in each of its columns (`marker`, a distinctive part of the payload, is counted
 * too, so a copy in a form not listed still shows), and for an event the stored bytes of each
 * top-level field of its data.
 */
export function payloadCopies(dataDir, { deliveryId, runId }, payloadJson, marker) {
  const forms = payloadForms(payloadJson);
  const rows = [];
  for (const name of sqliteFiles(dataDir)) {
    const db = new Database(join(dataDir, name), { readonly: true });
    try {
      const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
      for (const { name: table } of tables) {
        const columns = db.pragma(`table_info("${table}")`).map((column) => column.name);
        const mentions = columns.map(
          (column) => `instr(CAST("${column}" AS TEXT), @deliveryId) > 0 OR instr(CAST("${column}" AS TEXT), @runId) > 0`,
        );
        for (const row of db.prepare(`SELECT * FROM "${table}" WHERE ${mentions.join(' OR ')}`).all({ deliveryId, runId })) {
          const copies = [];
          for (const [column, value] of Object.entries(row)) {
            if (typeof value !== 'string') continue;
            const markers = occurrences(value, marker);
            for (const { form, text } of forms) {
              const count = occurrences(value, text);
              if (count > 0) copies.push({ column, form, count, bytes: count * Buffer.byteLength(text) });
            }
            const found = copies.filter((copy) => copy.column === column).reduce((sum, copy) => sum + copy.count, 0);
            if (markers > found) copies.push({ column, form: 'other (marker only)', count: markers - found, bytes: null });
          }
          const fields = table === 'events' ? fieldBytes(row.data) : undefined;
          rows.push({ file: name, table, type: row.type, stream: row.stream_id, copies, ...(fields ? { data_fields: fields } : {}) });
        }
      }
    } finally {
      db.close();
    }
  }
  return rows;
}

/** The stored bytes of each top-level field of an event's JSON data (`"name":value,` as written). */
function fieldBytes(data) {
  return Object.fromEntries(
    Object.entries(JSON.parse(data)).map(([key, value]) => [key, Buffer.byteLength(`${JSON.stringify(key)}:${JSON.stringify(value)},`)]),
  );
}

/** How often `marker` appears in the raw bytes of each file under `dir` (WAL, free pages and all). */
export function markerInFiles(dir, marker) {
  const needle = Buffer.from(marker);
  return filesUnder(dir).map((file) => ({ name: file.name, occurrences: occurrences(readFileSync(join(dir, file.name)), needle) }));
}

/**
 * The events table's bytes on disk after each step of `steps` ({ name, sql }: statements run in
 * turn), on a copy of the store (VACUUM INTO a temporary file), the copy vacuumed after each step so
 * that every figure is the rows as packed by a rewrite in order; the first step usually changes nothing.
 */
export function eventsTableAfter(storeFile, steps) {
  const scratch = mkdtempSync(join(tmpdir(), 'wts-bytes-copy-'));
  const copy = join(scratch, 'events.sqlite');
  try {
    const source = new Database(storeFile, { readonly: true });
    source.prepare('VACUUM INTO ?').run(copy);
    source.close();
    const db = new Database(copy);
    try {
      return steps.map(({ name, sql }) => {
        if (sql) db.exec(sql);
        db.exec('VACUUM');
        const table = db.prepare("SELECT sum(pgsize) AS bytes, sum(unused) AS unused FROM dbstat WHERE name = 'events'").get();
        return { name, ...(sql ? { sql } : {}), events_table_bytes: table.bytes, unused_bytes: table.unused };
      });
    } finally {
      db.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A table's leaf pages by how many rows each holds: { rows, pages, mean_unused_bytes }, fewest rows first (dbstat). */
export function leafPacking(file, table) {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare(
        `SELECT ncell AS rows, count(*) AS pages, round(avg(unused)) AS mean_unused_bytes
           FROM dbstat WHERE name = ? AND pagetype = 'leaf' GROUP BY ncell ORDER BY ncell`,
      )
      .all(table);
  } finally {
    db.close();
  }
}
