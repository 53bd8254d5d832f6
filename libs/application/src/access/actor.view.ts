import type { ActorRecord } from '@wts/contracts';

/**
 * An actor as the admin API shows it (`GET /admin/me`, audit entries): kind, subject, display.
 * Whether the display is verified is left out: it decides only what `?actor=` matches.
 */
export interface ActorView {
  readonly kind: ActorRecord['kind'];
  readonly subject: string;
  readonly display: string;
}

export function toActorView(actor: ActorView): ActorView {
  return { kind: actor.kind, subject: actor.subject, display: actor.display };
}
