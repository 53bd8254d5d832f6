import { cryptoRandom, systemClock } from '@wts/application';
import { ConfigurationError, type AppConfig } from '@wts/config';
import {
  AesGcmSecretSealer,
  encryptionKeyId,
  ensureKeyFile,
  keyRingIds,
  loadKeyRing,
  newEncryptionKey,
  prependKeyToFile,
  secretsKeyFile,
  type KeyRing,
} from '@wts/platform';
import { Command } from 'nest-commander';
import { CommandOptions, flag, json, OPERATOR } from './command-options.decorator';
import { CliCommand } from './cli.command';
import { ExitCode } from './cli.context';
import { CliFailure, UsageError } from './cli.errors';
import { rotateEncryptionKey } from './encryption-key.rotation';
import { commandLineOperator, recordOperatorAction } from './operator-action.recorder';
import { formatRotationReport, formatUnopenable, rotationReport } from './rotation.report';
import { cliConfig, withStore } from './store.session';

interface RawRotateOptions {
  readonly dryRun?: boolean;
  readonly newKey?: boolean;
  readonly operator?: string;
  readonly json?: boolean;
}

/**
 * `rotate-encryption-key`: reseals every signing secret not sealed under the key ring's first key
 * (SECRETS_ENCRYPTION_KEY, or the embedded default's DATA_DIR/secrets-encryption.key), then says
 * which key ids are still in use, so the old key can be removed. A secret that cannot be opened
 * (its key is not in the ring) is listed and the exit code is 1. `--new-key` (embedded default)
 * first puts a new key at the head of the key file. Keys are named by their ids only.
 */
@Command({
  name: 'rotate-encryption-key',
  description: "reseal the signed webhooks' signing secrets under the first key of SECRETS_ENCRYPTION_KEY (or of the key file)",
})
@CommandOptions(
  flag('--dry-run', 'report what would be resealed, write nothing'),
  flag('--new-key', 'embedded default: first put a new random key at the head of DATA_DIR/secrets-encryption.key (the old keys stay)'),
  OPERATOR,
  json('print the report as one JSON object'),
)
export class RotateEncryptionKeyCommand extends CliCommand {
  async run(_params: string[], options: RawRotateOptions): Promise<void> {
    const dryRun = options.dryRun === true;
    const newKey = options.newKey === true;
    const config = cliConfig(this.context);
    if (newKey) refuseNewKey(config, dryRun);
    const operator = commandLineOperator(this.context.env, options.operator);
    await withStore(this.context, async ({ store }) => {
      const addedKeyId = newKey ? this.addKey(secretsKeyFile(config)) : undefined;
      const ring = openRing(config);
      const keyIds = keyRingIds(ring);
      if (addedKeyId !== undefined && keyIds[0] !== addedKeyId) {
        throw new CliFailure('the key file changed while the new key was added (another rotate-encryption-key --new-key?): run it again');
      }
      const sealer = new AesGcmSecretSealer(ring.keys);
      const keysFrom = ring.source.kind === 'file' ? ring.source.file : 'SECRETS_ENCRYPTION_KEY';
      // A dry run changes nothing: only a run that reseals is on the audit trail (key ids only).
      const causation = dryRun
        ? undefined
        : await recordOperatorAction(store, operator, 'rotate_encryption_key', { new_key: newKey, key_id: sealer.currentKeyId });
      const outcome = await rotateEncryptionKey(store, sealer, {
        causation,
        now: () => systemClock.now().toISOString(),
        newId: () => cryptoRandom.uuid(),
        signal: this.context.signal,
      });
      const report = rotationReport(outcome, { keysFrom, keyIds, addedKeyId }, dryRun);
      this.context.stdout.write(options.json === true ? `${JSON.stringify(report)}\n` : formatRotationReport(report));
      if (report.unopenable.length > 0) {
        this.context.stderr.write(`${formatUnopenable(report.unopenable, keysFrom)}\n`);
        this.context.exitCode = ExitCode.failure;
      } else if (report.interrupted) {
        this.context.exitCode = ExitCode.interrupted;
      }
    });
  }

  /** Puts a new key first in the key file (made first if absent); the old lines stay. Returns its id. */
  private addKey(file: string): string {
    ensureKeyFile(file);
    const key = newEncryptionKey();
    try {
      prependKeyToFile(file, key);
    } catch (error) {
      if (error instanceof ConfigurationError) throw new UsageError(error.problems, 'the key file cannot be used');
      throw error;
    }
    const keyId = encryptionKeyId(key);
    this.context.stderr.write(
      `rotate-encryption-key: added key ${keyId} as the first line of ${file}; the keys below it stay until no secret is sealed under them\n`,
    );
    return keyId;
  }
}

/** --new-key writes the embedded default's key file: nowhere else is it read. */
function refuseNewKey(config: AppConfig, dryRun: boolean): void {
  if (dryRun) throw new UsageError(['--new-key writes the key file: leave out --dry-run (or --new-key, to preview)']);
  if (config.secrets.encryptionKeys !== undefined) {
    throw new UsageError([
      '--new-key writes DATA_DIR/secrets-encryption.key, which is not read while SECRETS_ENCRYPTION_KEY is set: put a new key (openssl rand -base64 32) first in SECRETS_ENCRYPTION_KEY on every ingress replica, restart them, then run rotate-encryption-key with that list',
    ]);
  }
  if (config.eventStore.connectionString !== undefined) {
    throw new UsageError([
      '--new-key is for the embedded default (its key file under DATA_DIR): with EventStoreDB, put a new key (openssl rand -base64 32) first in SECRETS_ENCRYPTION_KEY on every ingress replica, restart them, then run rotate-encryption-key with that list',
    ]);
  }
}

/** The ring the ingress would open; a bad key file or none at all is a configuration error (exit 2). */
function openRing(config: AppConfig): KeyRing {
  let ring: KeyRing | undefined;
  try {
    ring = loadKeyRing(config);
  } catch (error) {
    if (error instanceof ConfigurationError) throw new UsageError(error.problems, 'the signing secrets key ring cannot be used');
    throw error;
  }
  if (ring === undefined) {
    throw new UsageError([
      'SECRETS_ENCRYPTION_KEY is not set: with EventStoreDB the keys come from it only — give the list the ingress replicas have, the new key first',
    ]);
  }
  return ring;
}
