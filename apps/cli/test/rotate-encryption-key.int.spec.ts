import { causedBy, cryptoRandom, toAppend } from '@wts/application';
import { Streams, type SigningSecretResealed, type SigningSecretSealed, type WebhookEnabled } from '@wts/contracts';
import { signingSecretBinding } from '@wts/domain';
import {
  SqliteEventStore,
  type AppendResult,
  type EventStore,
  type AppendOptions,
  type EventToAppend,
  type ExpectedRevision,
  type RecordedEvent,
} from '@wts/event-store';
import { AesGcmSecretSealer, EMBEDDED_STORE_FILE, KeyFileSecretSealer, SECRETS_KEY_FILE, encryptionKeyId } from '@wts/platform';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rotateEncryptionKey } from '../src/encryption-key.rotation';
import { cli } from './cli-harness';

const KEY_A = randomBytes(32);
const KEY_B = randomBytes(32);
const KEY_C = randomBytes(32);
const [ID_A, ID_B] = [encryptionKeyId(KEY_A), encryptionKeyId(KEY_B)];
const ring = (...keys: Buffer[]): string => keys.map((key) => key.toString('base64')).join(',');

interface Planted {
  readonly webhookId: string;
  readonly secretId: string;
  readonly plaintext: string;
}

/** `rotate-encryption-key` on an embedded store whose signing secrets were sealed under key A. */
describe('rotate-encryption-key', () => {
  let dir: string;
  let env: Record<string, string>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wts-cli-rotate-'));
    env = { DATA_DIR: dir, WTS_OPERATOR: 'ada@example.com' };
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  async function withTestStore<T>(work: (store: SqliteEventStore) => Promise<T>): Promise<T> {
    const store = SqliteEventStore.open(join(dir, EMBEDDED_STORE_FILE));
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  }

  /** A SigningSecretSealed under `key`, appended straight to the webhook's signing_secret- stream, as the admin service does. */
  async function plantSecret(
    store: EventStore,
    key: Buffer,
    webhookId = `whk_${cryptoRandom.uuid().replace(/-/g, '').slice(0, 22)}`,
  ): Promise<Planted> {
    const secretId = `sgs_${cryptoRandom.uuid().replace(/-/g, '').slice(0, 22)}`;
    const plaintext = `whsec_${randomBytes(32).toString('base64')}`;
    const sealed: SigningSecretSealed = {
      type: 'SigningSecretSealed',
      data: {
        webhookId,
        secretId,
        sealed: new AesGcmSecretSealer([key]).seal(plaintext, signingSecretBinding(webhookId, secretId)),
        sealedAt: new Date().toISOString(),
      },
    };
    const result = await store.append(
      Streams.signingSecret(webhookId),
      toAppend([sealed], causedBy('req', 'req'), cryptoRandom.uuid),
      'any',
    );
    expect(result.kind).toBe('appended');
    return { webhookId, secretId, plaintext };
  }

  async function plantSecrets(key: Buffer, count: number): Promise<Planted[]> {
    return withTestStore(async (store) => {
      const planted: Planted[] = [];
      for (let i = 0; i < count; i += 1) planted.push(await plantSecret(store, key));
      return planted;
    });
  }

  async function everyEvent(): Promise<RecordedEvent[]> {
    return withTestStore(async (store) => [...(await store.readAll({ limit: 10_000 }))]);
  }

  async function resealedEvents(): Promise<RecordedEvent[]> {
    return (await everyEvent()).filter((event) => event.type === 'SigningSecretResealed');
  }

  function json(result: { code: number; stdout: string; stderr: string }): Record<string, unknown> {
    try {
      return JSON.parse(result.stdout) as Record<string, unknown>;
    } catch {
      throw new Error(`not JSON (exit ${result.code}): ${result.stdout}\n${result.stderr}`);
    }
  }

  const text = (events: readonly RecordedEvent[]): string =>
    JSON.stringify(events, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));

  it('reseals every secret sealed under A with ring [B, A]: SigningSecretResealed under B, opening to the same plaintext', async () => {
    const planted = await plantSecrets(KEY_A, 2);
    const result = await cli(['rotate-encryption-key', '--json'], { ...env, SECRETS_ENCRYPTION_KEY: ring(KEY_B, KEY_A) });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(json(result)).toEqual({
      dry_run: false,
      interrupted: false,
      keys_from: 'SECRETS_ENCRYPTION_KEY',
      ring_key_ids: [ID_B, ID_A],
      current_key_id: ID_B,
      added_key_id: null,
      webhooks: 2,
      secrets: 2,
      resealed: 2,
      already_current: 0,
      key_ids_in_use: { [ID_B]: 2 },
      unused_ring_key_ids: [ID_A],
      unopenable: [],
      unopenable_retired: [],
    });

    const resealed = await resealedEvents();
    expect(resealed).toHaveLength(2);
    const onlyB = new AesGcmSecretSealer([KEY_B]);
    for (const secret of planted) {
      const event = resealed.find((candidate) => candidate.streamId === Streams.signingSecret(secret.webhookId));
      const data = (event?.data ?? {}) as SigningSecretResealed['data'];
      expect(data).toMatchObject({ webhookId: secret.webhookId, secretId: secret.secretId, sealed: { keyId: ID_B } });
      expect(onlyB.open(data.sealed, signingSecretBinding(secret.webhookId, secret.secretId))).toBe(secret.plaintext);
      // Written after the SigningSecretSealed it builds on, by the operator, caused by the recorded action.
      expect(event?.revision).toBe(1n);
      expect(event?.metadata).toMatchObject({ actor: { kind: 'bootstrap', display: 'ada@example.com' } });
    }

    // The audit trail holds the action with key ids only; no key and no plaintext is stored anywhere.
    const events = await everyEvent();
    const actions = events.filter((event) => event.type === 'OperatorActionRecorded');
    expect(actions.map((event) => event.data)).toEqual([
      { action: 'rotate_encryption_key', detail: { new_key: false, key_id: ID_B }, at: expect.any(String) },
    ]);
    const causation = (actions[0].metadata as { correlationId: string }).correlationId;
    expect(resealed.every((event) => (event.metadata as { causationId: string }).causationId === causation)).toBe(true);
    const stored = text(events);
    for (const secret of [
      ...planted.map((one) => one.plaintext),
      ...[KEY_A, KEY_B].flatMap((key) => [key.toString('base64'), key.toString('hex')]),
    ]) {
      expect(stored).not.toContain(secret);
      expect(result.stdout + result.stderr).not.toContain(secret);
    }
  });

  it('run again, reseals nothing: every secret is under B already', async () => {
    await plantSecrets(KEY_A, 2);
    const keys = { ...env, SECRETS_ENCRYPTION_KEY: ring(KEY_B, KEY_A) };
    expect((await cli(['rotate-encryption-key'], keys)).code).toBe(0);
    const before = (await everyEvent()).length;

    const again = await cli(['rotate-encryption-key'], keys);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`resealed 0 under ${ID_B}; 2 already under it`);
    expect(again.stdout).toContain(`key ids in use: ${ID_B} (2)`);
    expect(again.stdout).toContain(
      `no secret is sealed under ${ID_A} any more: remove it from SECRETS_ENCRYPTION_KEY on every ingress replica`,
    );
    // Only the second run's own audit record was added.
    const after = await everyEvent();
    expect(after.length).toBe(before + 1);
    expect(after[after.length - 1].type).toBe('OperatorActionRecorded');
    // With the old key gone from the ring, everything still opens.
    expect(json(await cli(['rotate-encryption-key', '--json'], { ...env, SECRETS_ENCRYPTION_KEY: ring(KEY_B) }))).toMatchObject({
      resealed: 0,
      already_current: 2,
      key_ids_in_use: { [ID_B]: 2 },
      unopenable: [],
    });
  });

  it('with a ring without A, lists the secrets it cannot open on stderr, writes nothing for them, and exits 1', async () => {
    const planted = await plantSecrets(KEY_A, 2);
    const current = await withTestStore((store) => plantSecret(store, KEY_B));
    const result = await cli(['rotate-encryption-key', '--json'], { ...env, SECRETS_ENCRYPTION_KEY: ring(KEY_B, KEY_C) });
    expect(result.code).toBe(1);
    const report = json(result);
    expect(report).toMatchObject({
      resealed: 0,
      already_current: 1,
      key_ids_in_use: { [ID_B]: 1, [ID_A]: 2 },
      unused_ring_key_ids: [encryptionKeyId(KEY_C)],
    });
    expect(report.unopenable).toEqual(
      expect.arrayContaining(
        planted.map((secret) => ({ webhook_id: secret.webhookId, secret_id: secret.secretId, key_id: ID_A, reason: 'unknown_key' })),
      ),
    );
    expect(report.unopenable).toHaveLength(2);
    expect(result.stderr).toContain('error: 2 signing secrets cannot be opened with this key ring and stay sealed as before');
    for (const secret of planted) {
      expect(result.stderr).toContain(
        `webhook ${secret.webhookId} secret ${secret.secretId}: sealed under key ${ID_A}, which SECRETS_ENCRYPTION_KEY does not hold`,
      );
    }
    expect(result.stderr).toContain(
      'Put the missing key back in SECRETS_ENCRYPTION_KEY (after the sealing key) and run rotate-encryption-key again.',
    );
    expect(result.stderr).not.toContain(current.secretId);
    expect(await resealedEvents()).toEqual([]);
  });

  it('a retired secret it cannot open (its webhook rotated to another one since) is reported, not an error', async () => {
    const retired = await plantSecrets(KEY_A, 1);
    const { webhookId } = retired[0];
    await withTestStore(async (store) => {
      const now = await plantSecret(store, KEY_B, webhookId);
      const enabled: WebhookEnabled = {
        type: 'WebhookEnabled',
        data: {
          webhookId,
          routineId: 'rtn_RotateTest000000000000',
          verification: { scheme: 'standard_webhooks', secretId: now.secretId },
          defaultAccount: { accountId: 'acc_1', email: 'a@example.com' },
          accountOverrideAllowed: false,
          enabledAt: new Date().toISOString(),
        },
      };
      await store.append(Streams.webhook(webhookId), toAppend([enabled], causedBy('req', 'req'), cryptoRandom.uuid), 'no_stream');
    });
    const result = await cli(['rotate-encryption-key', '--json'], { ...env, SECRETS_ENCRYPTION_KEY: ring(KEY_B) });
    expect(result.code).toBe(0);
    expect(json(result)).toMatchObject({
      secrets: 2,
      already_current: 1,
      unopenable: [],
      unopenable_retired: [{ webhook_id: webhookId, secret_id: retired[0].secretId, key_id: ID_A, reason: 'unknown_key' }],
    });
    const plain = await cli(['rotate-encryption-key'], { ...env, SECRETS_ENCRYPTION_KEY: ring(KEY_B) });
    expect(plain.stdout).toContain(
      `left as they are: 1 retired secret (rotated since, or of a disabled webhook; none verifies a delivery)`,
    );
  });

  it('--dry-run reports what it would reseal and writes nothing, not even an audit record', async () => {
    await plantSecrets(KEY_A, 2);
    const before = await everyEvent();
    const result = await cli(['rotate-encryption-key', '--dry-run'], { ...env, SECRETS_ENCRYPTION_KEY: ring(KEY_B, KEY_A) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`dry run, nothing written: would reseal 2 under ${ID_B}; 0 already under it`);
    expect(result.stdout).toContain(`key ids in use now: ${ID_A} (2)`);
    expect(result.stdout).not.toContain('remove');
    expect(await everyEvent()).toEqual(before);
    const report = json(
      await cli(['rotate-encryption-key', '--dry-run', '--json'], { ...env, SECRETS_ENCRYPTION_KEY: ring(KEY_B, KEY_A) }),
    );
    expect(report).toMatchObject({ dry_run: true, resealed: 0, would_reseal: 2, key_ids_in_use: { [ID_A]: 2 }, unused_ring_key_ids: [] });
  });

  it('embedded default, --new-key: a new key first in DATA_DIR/secrets-encryption.key, the old line kept, every secret resealed under it; a running ingress follows', async () => {
    const keyFile = join(dir, SECRETS_KEY_FILE);
    writeFileSync(keyFile, `${KEY_A.toString('base64')}\n`, { mode: 0o600 });
    const planted = await plantSecrets(KEY_A, 2);
    // What a running ingress holds: the key file's sealer, opened before the rotation.
    const ingress = new KeyFileSecretSealer(keyFile);
    expect(ingress.currentKeyId).toBe(ID_A);

    const result = await cli(['rotate-encryption-key', '--new-key', '--json'], env);
    expect(result.code).toBe(0);
    const lines = readFileSync(keyFile, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(KEY_A.toString('base64'));
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const newId = encryptionKeyId(Buffer.from(lines[0], 'base64'));
    expect(json(result)).toMatchObject({
      keys_from: keyFile,
      ring_key_ids: [newId, ID_A],
      current_key_id: newId,
      added_key_id: newId,
      resealed: 2,
      key_ids_in_use: { [newId]: 2 },
      unused_ring_key_ids: [ID_A],
    });
    expect(result.stderr).toContain(`added key ${newId} as the first line of ${keyFile}`);
    expect(result.stderr).not.toContain(lines[0]);

    // The ingress seals under the new key from now on and opens what was resealed.
    expect(ingress.currentKeyId).toBe(newId);
    for (const event of await resealedEvents()) {
      const data = event.data as SigningSecretResealed['data'];
      const secret = planted.find((one) => one.secretId === data.secretId);
      expect(ingress.open(data.sealed, signingSecretBinding(data.webhookId, data.secretId))).toBe(secret?.plaintext);
    }
    const actions = (await everyEvent()).filter((event) => event.type === 'OperatorActionRecorded');
    expect(actions.map((event) => event.data)).toEqual([
      { action: 'rotate_encryption_key', detail: { new_key: true, key_id: newId }, at: expect.any(String) },
    ]);

    // How to drop the old key, printed for people; done as said, the next run finds nothing under it.
    const again = await cli(['rotate-encryption-key'], env);
    expect(again.stdout).toContain(
      `remove every key but the first from ${keyFile} (the running ingress follows the file), e.g.: sed -i '2,$d' ${keyFile}`,
    );
    writeFileSync(keyFile, `${lines[0]}\n`);
    const after = json(await cli(['rotate-encryption-key', '--json'], env));
    expect(after).toMatchObject({ ring_key_ids: [newId], resealed: 0, already_current: 2, unopenable: [] });
  });

  it.each([
    [['--new-key', '--dry-run'], {}, '--new-key writes the key file: leave out --dry-run'],
    [['--new-key'], { SECRETS_ENCRYPTION_KEY: ring(KEY_A) }, 'which is not read while SECRETS_ENCRYPTION_KEY is set'],
  ])('refuses %j with exit 2, changing nothing', async (args, extra, message) => {
    await plantSecrets(KEY_A, 1);
    const before = await everyEvent();
    const result = await cli(['rotate-encryption-key', ...args], { ...env, ...extra });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(await everyEvent()).toEqual(before);
  });

  it('a key file open to others is refused with exit 2, naming the fix', async () => {
    await plantSecrets(KEY_A, 1);
    const keyFile = join(dir, SECRETS_KEY_FILE);
    writeFileSync(keyFile, `${KEY_A.toString('base64')}\n`, { mode: 0o644 });
    const result = await cli(['rotate-encryption-key'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`chmod 600 ${keyFile}`);
  });

  it('a stream that moves on while it is resealed (an admin rotates that webhook) is read again and resealed whole', async () => {
    const [first] = await plantSecrets(KEY_A, 1);
    await withTestStore(async (store) => {
      let interfered = false;
      // Just before the command's append, another secret is sealed on the same stream (under A too).
      const racing = new InterferingStore(store, async () => {
        if (interfered) return;
        interfered = true;
        await plantSecret(store, KEY_A, first.webhookId);
      });
      const sealer = new AesGcmSecretSealer([KEY_B, KEY_A]);
      const outcome = await rotateEncryptionKey(racing, sealer, {
        causation: causedBy('op', 'op'),
        now: () => new Date().toISOString(),
        newId: cryptoRandom.uuid,
        signal: new AbortController().signal,
      });
      expect(racing.conflicts).toBe(1);
      expect(outcome).toMatchObject({ secrets: 2, resealed: 2, unopenable: [] });
      expect([...outcome.keyIdsInUse]).toEqual([[ID_B, 2]]);
      const stream = await store.readStream(Streams.signingSecret(first.webhookId));
      expect(stream.map((event) => event.type)).toEqual([
        'SigningSecretSealed',
        'SigningSecretSealed',
        'SigningSecretResealed',
        'SigningSecretResealed',
      ]);
    });
  });
});

/** Forwards to a real store; before each append, runs `before` (which may append elsewhere first) and counts the conflicts. */
class InterferingStore implements EventStore {
  conflicts = 0;

  constructor(
    private readonly inner: EventStore,
    private readonly before: () => Promise<void>,
  ) {}

  get maxEventBytes(): number {
    return this.inner.maxEventBytes;
  }

  async append(
    streamId: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
    options?: AppendOptions,
  ): Promise<AppendResult> {
    await this.before();
    const result = await this.inner.append(streamId, events, expected, options);
    if (result.kind === 'conflict') this.conflicts += 1;
    return result;
  }

  payloads: EventStore['payloads'] = () => this.inner.payloads();
  readStream: EventStore['readStream'] = (streamId, options) => this.inner.readStream(streamId, options);
  streamHeads: EventStore['streamHeads'] = (streamIds) => this.inner.streamHeads(streamIds);
  readFirstEvents: EventStore['readFirstEvents'] = (streamIds) => this.inner.readFirstEvents(streamIds);
  readAll: EventStore['readAll'] = (options) => this.inner.readAll(options);
  subscribeToAll: EventStore['subscribeToAll'] = (options, handler) => this.inner.subscribeToAll(options, handler);
  headPosition: EventStore['headPosition'] = () => this.inner.headPosition();
  ping: EventStore['ping'] = () => this.inner.ping();
  close: EventStore['close'] = () => this.inner.close();
}
