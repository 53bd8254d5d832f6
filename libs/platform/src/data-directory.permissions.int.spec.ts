import { ConfigurationError, loadConfig, type AppConfig } from '@wts/config';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { secureDataDirectory, tightenFiles } from './data-directory.permissions';
import { openEventStore, prepareEventStore } from './event-store.factory';
import { openReadModelStore } from './read-model.factory';
import { loadKeyRing, openSecretSealer } from './secrets/secrets-key-ring';

/** Every directory and file under `root` (itself included), with its permission bits, by path relative to root. */
function modesUnder(root: string): Record<string, string> {
  const modes: Record<string, string> = {};
  const visit = (path: string): void => {
    const stats = statSync(path);
    modes[relative(root, path) || '.'] = `${stats.isDirectory() ? 'dir' : 'file'} ${(stats.mode & 0o777).toString(8)}`;
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return modes;
}

/** Runs `work` with the process's umask at `umask`, restored after. */
async function withUmask<T>(umask: number, work: () => Promise<T>): Promise<T> {
  const previous = process.umask(umask);
  try {
    return await work();
  } finally {
    process.umask(previous);
  }
}

/**
 * DESIGN "Files at rest": DATA_DIR is 0700 and every file the service writes in it 0600, whatever
 * the umask — the event store, the read models, their WAL and shared-memory files, the
 * checkpoints (in the store's file) and the signing secrets' key file.
 */
describe('DATA_DIR at rest', () => {
  let parent: string;
  let config: AppConfig;

  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'wts-data-dir-'));
    config = loadConfig({ DATA_DIR: join(parent, 'data'), LOG_LEVEL: 'silent' });
  });

  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  it('given umask 000 and a fresh DATA_DIR, then the stores the services open make it 0700 and every file in it 0600', async () => {
    const dataDir = config.storage.dataDir;
    const modes = await withUmask(0o000, async () => {
      // What the launcher, then the ingress open (the dispatcher opens the same files).
      await prepareEventStore(config);
      const secrets = openSecretSealer(config);
      const { store, checkpoints } = await openEventStore(config);
      const { readModels } = await openReadModelStore(config, { activityOffThread: true });
      try {
        expect(secrets).toBeDefined();
        const appended = await store.append(
          `permissions-${randomUUID()}`,
          [{ id: randomUUID(), type: 'PermissionsChecked', data: { at: Date.now() }, metadata: {} }],
          'no_stream',
        );
        expect(appended.kind).toBe('appended');
        await checkpoints.save('permissions', { commit: 1n, prepare: 1n });
        await readModels.recordAttempts(
          [{ webhookId: 'whk_permissions', reason: 'wrong_secret', at: new Date().toISOString(), sourceAddress: '203.0.113.9' }],
          10,
        );
        await readModels.commit('permissions', [], undefined, { commit: 1n, prepare: 1n });
        // While both are open: their -wal and -shm files exist.
        return modesUnder(dataDir);
      } finally {
        await readModels.close();
        await store.close();
      }
    });

    expect(modes).toEqual({
      '.': 'dir 700',
      'events.sqlite': 'file 600',
      'events.sqlite-wal': 'file 600',
      'events.sqlite-shm': 'file 600',
      'readmodels.sqlite': 'file 600',
      'readmodels.sqlite-wal': 'file 600',
      'readmodels.sqlite-shm': 'file 600',
      'secrets-encryption.key': 'file 600',
    });
    // Closed, whatever SQLite left behind is private too.
    expect(Object.values(modesUnder(dataDir)).filter((mode) => mode !== 'file 600' && mode !== 'dir 700')).toEqual([]);
  });

  it('given umask 000, then a start makes DATA_DIR 0700 (and a missing parent), and says nothing', async () => {
    const nested = loadConfig({ DATA_DIR: join(parent, 'deep', 'data'), LOG_LEVEL: 'silent' });
    const warnings: string[] = [];
    await withUmask(0o000, async () => secureDataDirectory(nested, (message) => warnings.push(message)));
    expect(modesUnder(join(parent, 'deep'))).toEqual({ '.': 'dir 700', data: 'dir 700' });
    expect(warnings).toEqual([]);
  });

  it('given a DATA_DIR and files open to others, then a start tightens them and says so once; a loose key file is still refused', () => {
    const dataDir = config.storage.dataDir;
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    for (const name of ['events.sqlite', 'events.sqlite-wal', 'readmodels.sqlite']) {
      writeFileSync(join(dataDir, name), '');
      chmodSync(join(dataDir, name), 0o644);
    }
    writeFileSync(join(dataDir, 'readmodels.sqlite-shm'), '');
    chmodSync(join(dataDir, 'readmodels.sqlite-shm'), 0o600);
    // The key file's own check refuses it: a key others could read may have leaked (rotate it, do not just hide it).
    writeFileSync(join(dataDir, 'secrets-encryption.key'), `${Buffer.alloc(32, 7).toString('base64')}\n`);
    chmodSync(join(dataDir, 'secrets-encryption.key'), 0o644);
    const warnings: string[] = [];

    secureDataDirectory(config, (message) => warnings.push(message));

    expect(modesUnder(dataDir)).toEqual({
      '.': 'dir 700',
      'events.sqlite': 'file 600',
      'events.sqlite-wal': 'file 600',
      'readmodels.sqlite': 'file 600',
      'readmodels.sqlite-shm': 'file 600',
      'secrets-encryption.key': 'file 644',
    });
    expect(warnings).toEqual([
      `DATA_DIR ${dataDir} was open to other users; made owner-only (0700, files 0600): the directory (was 0755), events.sqlite (was 0644), events.sqlite-wal (was 0644), readmodels.sqlite (was 0644)`,
    ]);
    expect(() => loadKeyRing(config)).toThrow(ConfigurationError);
    expect(() => loadKeyRing(config)).toThrow('chmod 600');

    secureDataDirectory(config, (message) => warnings.push(message));
    expect(warnings).toHaveLength(1);
  });

  it('given a file that is gone by the time it is looked at (the other service renamed its temporary key file), then it is passed over', () => {
    const dataDir = config.storage.dataDir;
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, 'events.sqlite'), '');
    chmodSync(join(dataDir, 'events.sqlite'), 0o644);
    // As the listing saw it: the temporary file was renamed into place before it could be looked at.
    const listed = ['.secrets-encryption.key.24982.3f8338900dc6.tmp', 'events.sqlite'];

    expect(tightenFiles(dataDir, listed)).toEqual(['events.sqlite (was 0644)']);
    expect(modesUnder(dataDir)).toEqual({ '.': 'dir 700', 'events.sqlite': 'file 600' });
  });

  it('given the production shape (EventStoreDB and PostgreSQL), then DATA_DIR is neither made nor touched', () => {
    const production = loadConfig({
      DATA_DIR: join(parent, 'unused'),
      EVENTSTORE_CONNECTION_STRING: 'esdb://127.0.0.1:2113?tls=false',
      DATABASE_URL: 'postgres://app@127.0.0.1:5432/wts',
      ADMIN_TOKEN: 'a-valid-admin-token-1234',
    });
    secureDataDirectory(production, () => undefined);
    expect(readdirSync(parent)).toEqual([]);
  });
});
