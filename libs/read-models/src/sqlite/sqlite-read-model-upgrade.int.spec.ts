/**
 * SqliteReadModelStore and the schema versions of its file: a file an older build left is upgraded
 * in place (its rows and checkpoint kept, what later migrations add filled in as those builds
 * meant), and a file of a newer build is refused.
 */
import { sqliteFileHeader, stampSqliteUserVersion } from '@wts/testing';
import { LEGACY_AUDIT_ACTORS, LEGACY_AUDIT_ROWS, VERSION_5_DELIVERIES, deniedRow } from '../contract/contract.fixtures';
import { ReadModelUnavailableError, type AuditRow } from '../read-model.port';
import { READ_MODEL_SCHEMA_VERSION } from './sqlite-read-model.migrations';
import { useOpenedStores, useTempFiles, writeFileOfSchemaVersion } from './testing/sqlite-read-model.fixtures';
import { expectUpgradedFromVersion1 } from '../../../../test/support/read-model-upgrade.assertions';

const tempFile = useTempFiles();

describe('SqliteReadModelStore (SQLite schema versions)', () => {
  const openStore = useOpenedStores();

  it('upgrades a file of schema version 1 in place: its rows and checkpoint kept, the audit trail added', async () => {
    const file = tempFile();
    // The file as the previous build left it: only the first migration, with a delivery and a checkpoint.
    writeFileOfSchemaVersion(
      file,
      1,
      `INSERT INTO rm_deliveries VALUES ('d1', 'r1', 'w1', 'run1', '2024-05-01T12:00:00.000Z', 'a1', 'a@example.com', 'text/plain', NULL, 5, 5);
       INSERT INTO rm_checkpoints VALUES ('read-models', 5, 5)`,
    );

    const store = openStore(file);

    await expectUpgradedFromVersion1(store);
    expect(sqliteFileHeader(file).userVersion).toBe(READ_MODEL_SCHEMA_VERSION);
  });

  it("upgrades a file of schema version 3: the audit trail's OIDC displays count as unverified, keys' names and the bootstrap's as verified", async () => {
    const file = tempFile();
    writeFileOfSchemaVersion(file, 3, LEGACY_AUDIT_ROWS);

    const store = openStore(file);

    expect(await store.audit({ actor: 'ceo@example.com' }, { limit: 10 })).toMatchObject({ items: [] });
    expect((await store.audit({ actor: 'sub-mallory' }, { limit: 10 })).items.map((row) => row.entryId)).toEqual(['e1']);
    expect((await store.audit({ actor: 'ci bot' }, { limit: 10 })).items.map((row) => row.entryId)).toEqual(['e2']);
    expect((await store.audit({}, { limit: 10 })).items.map((row) => row.actor)).toEqual(LEGACY_AUDIT_ACTORS);
  });

  it('upgrades a file of schema version 3: its denied entries kept, without a source address, and bounded by their class', async () => {
    const file = tempFile();
    writeFileOfSchemaVersion(
      file,
      3,
      `INSERT INTO rm_audit_entries (entry_id, at, action, target_type, outcome, detail)
       VALUES ('old', '2024-05-01T12:00:00.000Z', 'POST /admin/routines', 'admin_api', 'denied', 'no_credential')`,
    );

    const store = openStore(file);
    expect((await store.audit({}, { limit: 10 })).items).toEqual([expect.objectContaining({ entryId: 'old', sourceAddress: null })]);
    const newer = (n: number): AuditRow => deniedRow(`new${n}`, { actor: null, at: `2024-05-02T12:00:0${n}.000Z` });
    await store.recordDeniedAccess([newer(1), newer(2)], { perSource: 10, overall: 2 });
    expect((await store.audit({}, { limit: 10 })).items.map((row) => row.entryId)).toEqual(['new2', 'new1']);
  });

  it("upgrades a file of schema version 5: its deliveries' payloads kept, never expiring, and found by their trigger account in any case", async () => {
    const file = tempFile();
    // Folded as the account catalog folds addresses, beyond ASCII (SQLite's own lower() would not).
    const accented = `INSERT INTO rm_deliveries VALUES ('d3', 'r2', 'w2', 'run3', '2024-05-01T12:00:02.000Z', 'a3', 'ÉLODIE@example.com', 'text/plain', NULL, 7, 7)`;
    writeFileOfSchemaVersion(file, 5, `${VERSION_5_DELIVERIES}; ${accented}`);

    const store = openStore(file);

    const listed = (await store.deliveries('r1', { limit: 10 })).items;
    expect(listed.map((row) => [row.delivery_id, row.payload_state, row.payload_expires_at, row.payload_removed_at])).toEqual([
      ['d2', 'kept', null, null],
      ['d1', 'kept', null, null],
    ]);
    expect(await store.erasureCandidates({ triggerAccount: 'ALICE@example.com' }, null, 10)).toEqual({
      deliveryIds: ['d1'],
      scanned: 3,
      next: null,
    });
    expect(await store.erasureCandidates({ triggerAccount: 'élodie@EXAMPLE.com' }, null, 10)).toEqual({
      deliveryIds: ['d3'],
      scanned: 3,
      next: null,
    });
    expect(await store.payloadsDue(new Date('2999-01-01T00:00:00.000Z'), 10)).toEqual([]);
  });

  it('refuses a file whose schema is newer than this build with ReadModelUnavailableError', () => {
    const file = tempFile();
    openStore(file);
    stampSqliteUserVersion(file, 99);

    expect(() => openStore(file)).toThrow(ReadModelUnavailableError);
    expect(() => openStore(file)).toThrow(/newer than this build/);
  });
});
