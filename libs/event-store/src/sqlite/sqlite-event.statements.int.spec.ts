import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStatements } from './sqlite-event.statements';
import { migrate } from './sqlite-schema.migrations';

/**
 * The stream-head lookup runs on every request, unauthenticated ones included, with as many
 * streams as requests arrived in one event-loop turn: its statement must not depend on that count.
 */
describe('SqliteEventStatements.streamHeads', () => {
  let dir: string;
  let db: Database.Database;
  let queries: SqliteEventStatements;
  let prepared: number;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wts-heads-'));
    db = new Database(join(dir, 'events.sqlite'));
    db.defaultSafeIntegers(true);
    migrate(db);
    queries = new SqliteEventStatements(db);
    const insert = db.transaction(() => {
      for (let i = 0; i < 3000; i += 2) {
        for (let revision = 0; revision <= i % 3; revision += 1) {
          queries.insert(
            `webhook-${i}`,
            BigInt(revision),
            { id: `00000000-0000-7000-8000-${String(i * 10 + revision).padStart(12, '0')}`, type: 'T', data: '{}', metadata: '{}' },
            Date.now(),
          );
        }
      }
    });
    insert();
    const prepare = db.prepare.bind(db);
    prepared = 0;
    jest.spyOn(db, 'prepare').mockImplementation((source: string) => {
      prepared += 1;
      return prepare(source);
    });
  });

  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([1, 3, 2000, 2001, 3000])(
    '%i streams: the heads of those that exist, with the one statement prepared at start (none prepared now)',
    (count) => {
      const ids = Array.from({ length: count }, (_, i) => `webhook-${i}`);
      const heads = queries.streamHeads([...ids, ids[0] as string]);
      const expected = new Map(ids.filter((_, i) => i % 2 === 0).map((id) => [id, BigInt(Number(id.slice(8)) % 3)]));
      expect(heads).toEqual(expected);
      expect(prepared).toBe(0);
      expect(queries.cachedStatementCount()).toBe(1);
    },
  );

  it('stream ids are data, whatever they hold (quotes, JSON, non-ASCII)', () => {
    const odd = ['webhook-"quoted"', 'webhook-]},{', 'webhook-ünï', "webhook-'; DROP TABLE events; --"];
    queries.insert(odd[0] as string, 0n, { id: '00000000-0000-7000-9000-000000000001', type: 'T', data: '{}', metadata: '{}' }, Date.now());
    expect(queries.streamHeads(odd)).toEqual(new Map([[odd[0], 0n]]));
    expect(queries.streamHeads([])).toEqual(new Map());
  });
});
