import { ACCOUNT_CATALOG_STREAM, Streams, type VerificationScheme } from '@wts/contracts';
import type { UseCaseContext } from '../shared/use-case.context';

/** Looked at in place of a routine while no webhook was ever enabled (no known id exists to compare with). */
const UNKNOWN_ROUTINE = 'rtn_unknown';

/**
 * The streams this decision reads — the webhook, its routine and the account catalog — checked
 * against their heads (one cheap look whatever the traffic), and read only where they moved.
 * An unknown id does the same look: its own webhook stream (a webhook enabled through another
 * replica a moment ago is found), the catalog, and in place of a routine the stream of an existing
 * one (the decoy routine), so that the store finds a routine stream on every 404 path — an absent
 * stream is a cheaper lookup, and that difference was measurable (docs/timing.md). A store that
 * cannot be read fails the request (503): a decision on a view that may be stale could accept a
 * revoked secret.
 */
export async function freshenForDecision(context: UseCaseContext, webhookId: string, scheme: VerificationScheme): Promise<void> {
  const { config } = context;
  const known = config.webhook(webhookId)?.routineId;
  const routine = known ?? config.decoyRoutineId() ?? UNKNOWN_ROUTINE;
  await context.fresh([Streams.webhook(webhookId), ACCOUNT_CATALOG_STREAM, Streams.routine(routine)]);
  const webhook = config.webhook(webhookId);
  // First sight of this webhook here (enabled through another replica a moment ago).
  if (webhook !== undefined && webhook.routineId !== known) await context.fresh([Streams.routine(webhook.routineId)]);
  // A signing secret sealed a moment ago (its event precedes the webhook event naming it): read it once.
  // An unknown id's signed request asks the same of the scheme's decoy webhook (authenticateSigned).
  const subject = webhook ?? (scheme === 'bearer' ? undefined : config.signedDecoy(scheme));
  const secretId = subject?.signingSecretId;
  if (subject && secretId && !config.hasSigningSecretFolded(subject.webhookId, secretId))
    await context.fresh([Streams.signingSecret(subject.webhookId)]);
}
