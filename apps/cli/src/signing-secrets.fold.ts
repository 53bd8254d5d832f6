import { asEvent } from '@wts/application';
import type { SealedSecret, SigningSecretEvent } from '@wts/contracts';
import type { RecordedEvent } from '@wts/event-store';

/** A signing secret as its stream last sealed it. */
export interface SealedSigningSecret {
  readonly webhookId: string;
  readonly secretId: string;
  readonly sealed: SealedSecret;
}

/** One `signing_secret-<webhook id>` stream, folded. */
export interface SigningSecretStream {
  readonly streamId: string;
  /** The revision of its last event: an append building on this fold expects it. */
  readonly revision: bigint;
  /** The latest sealed form of each secret id (SigningSecretSealed, then any SigningSecretResealed), in first-sealed order. */
  readonly secrets: ReadonlyMap<string, SealedSigningSecret>;
}

/** Folds recorded `signing_secret-` events (in store order) into their streams; other events are left out. */
export function foldSigningSecretStreams(
  events: Iterable<RecordedEvent>,
  streams: Map<string, SigningSecretStream> = new Map(),
): Map<string, SigningSecretStream> {
  for (const recorded of events) {
    const before = streams.get(recorded.streamId);
    const secrets = new Map(before?.secrets);
    if (recorded.type === 'SigningSecretSealed' || recorded.type === 'SigningSecretResealed') {
      const { data } = asEvent<SigningSecretEvent>(recorded);
      secrets.set(data.secretId, { webhookId: data.webhookId, secretId: data.secretId, sealed: data.sealed });
    }
    streams.set(recorded.streamId, { streamId: recorded.streamId, revision: recorded.revision, secrets });
  }
  return streams;
}
