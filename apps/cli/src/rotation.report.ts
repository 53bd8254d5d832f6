import type { RotationOutcome, UnopenableSecret } from './encryption-key.rotation';

/** What `rotate-encryption-key --json` prints: key ids only, never a key or a secret. */
export interface RotationReport {
  readonly dry_run: boolean;
  readonly interrupted: boolean;
  /** SECRETS_ENCRYPTION_KEY, or the key file's path. */
  readonly keys_from: string;
  /** The key ring, the sealing key first. */
  readonly ring_key_ids: readonly string[];
  readonly current_key_id: string;
  /** Set when --new-key put this key first in the key file. */
  readonly added_key_id: string | null;
  readonly webhooks: number;
  readonly secrets: number;
  readonly resealed: number;
  /** A dry run: how many would be resealed (`resealed` is then 0). */
  readonly would_reseal?: number;
  readonly already_current: number;
  /** How many secrets each key id seals once the run is done (a dry run: as it is now). */
  readonly key_ids_in_use: Readonly<Record<string, number>>;
  /** Keys of the ring no secret is sealed under any more: they can be removed. */
  readonly unused_ring_key_ids: readonly string[];
  /** Secrets in use that cannot be opened (the command exits 1): their webhooks cannot verify signatures. */
  readonly unopenable: readonly UnopenableEntry[];
  /** Retired secrets (no webhook verifies with them) that cannot be opened: left as they are, not an error. */
  readonly unopenable_retired: readonly UnopenableEntry[];
}

export interface UnopenableEntry {
  readonly webhook_id: string;
  readonly secret_id: string;
  readonly key_id: string;
  readonly reason: UnopenableSecret['reason'];
}

export function rotationReport(
  outcome: RotationOutcome,
  ring: { readonly keysFrom: string; readonly keyIds: readonly string[]; readonly addedKeyId: string | undefined },
  dryRun: boolean,
): RotationReport {
  const current = ring.keyIds[0];
  const inUse = new Map(outcome.keyIdsInUse);
  if (dryRun) {
    // Nothing moved: the resealable secrets are still under their old keys.
    inUse.clear();
    for (const [keyId, count] of outcome.keyIdsBefore) inUse.set(keyId, count);
  }
  const complete = !outcome.interrupted;
  return {
    dry_run: dryRun,
    interrupted: outcome.interrupted,
    keys_from: ring.keysFrom,
    ring_key_ids: ring.keyIds,
    current_key_id: current,
    added_key_id: ring.addedKeyId ?? null,
    webhooks: outcome.streams,
    secrets: outcome.secrets,
    resealed: dryRun ? 0 : outcome.resealed,
    ...(dryRun ? { would_reseal: outcome.resealed } : {}),
    already_current: outcome.alreadyCurrent,
    key_ids_in_use: Object.fromEntries([...inUse].sort(([a], [b]) => (a === current ? -1 : b === current ? 1 : a.localeCompare(b)))),
    unused_ring_key_ids: complete ? ring.keyIds.filter((keyId) => keyId !== current && !inUse.has(keyId)) : [],
    unopenable: outcome.unopenable.filter((secret) => !secret.retired).map(entry),
    unopenable_retired: outcome.unopenable.filter((secret) => secret.retired).map(entry),
  };
}

function entry(secret: UnopenableSecret): UnopenableEntry {
  return { webhook_id: secret.webhookId, secret_id: secret.secretId, key_id: secret.keyId, reason: secret.reason };
}

/** The report for people: stdout. */
export function formatRotationReport(report: RotationReport): string {
  const lines: string[] = [];
  const ring = report.ring_key_ids.map((keyId, index) => (index === 0 ? `${keyId} (sealing)` : keyId)).join(', ');
  lines.push(`keys from ${report.keys_from}: ${ring}`);
  lines.push(`${report.secrets} signing ${plural(report.secrets, 'secret')} on ${report.webhooks} ${plural(report.webhooks, 'webhook')}`);
  const done = report.dry_run
    ? `dry run, nothing written: would reseal ${report.would_reseal ?? 0} under ${report.current_key_id}`
    : `resealed ${report.resealed} under ${report.current_key_id}`;
  const unopenable = report.unopenable.length + report.unopenable_retired.length;
  lines.push(`${done}; ${report.already_current} already under it${unopenable > 0 ? `; ${unopenable} cannot be opened` : ''}`);
  const inUse = Object.entries(report.key_ids_in_use).map(([keyId, count]) => `${keyId} (${count})`);
  lines.push(`key ids in use${report.dry_run ? ' now' : ''}: ${inUse.length > 0 ? inUse.join(', ') : 'none'}`);
  if (report.interrupted) lines.push('interrupted before every webhook was done: run rotate-encryption-key again');
  if (report.unopenable_retired.length > 0) {
    const retired = report.unopenable_retired.map((secret) => `${secret.webhook_id}/${secret.secret_id} (key ${secret.key_id})`);
    lines.push(
      `left as they are: ${retired.length} retired ${plural(retired.length, 'secret')} (rotated since, or of a disabled webhook; none verifies a delivery) that cannot be opened: ${retired.join(', ')}`,
    );
  }
  if (report.unused_ring_key_ids.length > 0 && !report.dry_run && report.unopenable.length === 0) {
    lines.push(`no secret is sealed under ${report.unused_ring_key_ids.join(', ')} any more: ${removalAdvice(report)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** How the old keys are removed, where they are kept. */
function removalAdvice(report: RotationReport): string {
  if (report.keys_from === 'SECRETS_ENCRYPTION_KEY') {
    return 'remove it from SECRETS_ENCRYPTION_KEY on every ingress replica (keep the sealing key first) and restart them';
  }
  const file = report.keys_from;
  return `remove every key but the first from ${file} (the running ingress follows the file), e.g.: sed -i '2,$d' ${file}`;
}

/** The secrets left sealed as they were, for stderr: each one's webhook cannot verify signatures until it is fixed. */
export function formatUnopenable(unopenable: readonly UnopenableEntry[], keysFrom: string): string {
  const lines = unopenable.map((secret) =>
    secret.reason === 'unknown_key'
      ? `  webhook ${secret.webhook_id} secret ${secret.secret_id}: sealed under key ${secret.key_id}, which ${keysFrom} does not hold`
      : `  webhook ${secret.webhook_id} secret ${secret.secret_id}: fails its authentication check under key ${secret.key_id} (altered, or not bound to this webhook)`,
  );
  const missing = unopenable.some((secret) => secret.reason === 'unknown_key');
  const altered = unopenable.some((secret) => secret.reason === 'not_authentic');
  return [
    `error: ${unopenable.length} signing ${plural(unopenable.length, 'secret')} cannot be opened with this key ring and ${unopenable.length === 1 ? 'stays' : 'stay'} sealed as before; ${unopenable.length === 1 ? 'its webhook' : 'their webhooks'} cannot verify signatures:`,
    ...lines,
    ...(missing ? [`Put the missing key back in ${keysFrom} (after the sealing key) and run rotate-encryption-key again.`] : []),
    ...(altered
      ? ['A secret that fails its check cannot be recovered: rotate that webhook (POST /admin/routines/{id}/webhook/rotate).']
      : []),
  ].join('\n');
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
