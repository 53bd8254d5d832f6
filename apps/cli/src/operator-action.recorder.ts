import { cryptoRandom, recordOperatorAction as recordAction, systemClock, type CausationContext } from '@wts/application';
import type { ActorRecord, OperatorActionRecorded } from '@wts/contracts';
import type { EventStore } from '@wts/event-store';
import { hostname, userInfo } from 'node:os';
import { UsageError } from './cli.errors';

/** `--operator`: who runs the command, as the audit trail shows it (else WTS_OPERATOR, else the login name). */
export const OPERATOR_OPTION = {
  flags: '--operator <name>',
  description: 'who runs this, for the audit trail (default: $WTS_OPERATOR, else your login name)',
} as const;

const PRINTABLE = /^[^\p{Cc}]{1,200}$/u;

/**
 * The actor of a command-line operation. The command line holds the store's own credentials,
 * which open everything: it is the `bootstrap` kind, its subject the login and machine it ran on,
 * its display the name the operator gave (or that login).
 */
export function commandLineOperator(env: Readonly<Record<string, string | undefined>>, given: string | undefined): ActorRecord {
  const login = loginName();
  const display = (given ?? env.WTS_OPERATOR ?? login).trim();
  if (!PRINTABLE.test(display)) throw new UsageError(['--operator (or WTS_OPERATOR) must be 1–200 printable characters']);
  // Given by whoever holds the store's own credentials (which open everything): searchable by it.
  return { kind: 'bootstrap', subject: `cli:${login}@${hostname()}`, display, displayVerified: true };
}

/** Records a command-line operation for the audit trail before it starts (see recordOperatorAction in @wts/application). */
export function recordOperatorAction(
  store: EventStore,
  actor: ActorRecord,
  action: OperatorActionRecorded['data']['action'],
  detail: OperatorActionRecorded['data']['detail'],
): Promise<CausationContext> {
  return recordAction({ store, clock: systemClock, random: cryptoRandom }, actor, action, detail);
}

function loginName(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    // No passwd entry for this uid (containers): say so rather than fail the command.
    return `uid-${process.getuid?.() ?? 'unknown'}`;
  }
}
