import type { Event } from './event.contract';

/** The single stream of every API key: one aggregate, so a revocation is one stream head to confirm. */
export const API_KEY_CATALOG_STREAM = 'api_key-catalog';

/** Who may do what on the admin API, lowest first: each role can do everything the one before it can. */
export type OperatorRole = 'viewer' | 'operator' | 'admin';

/**
 * Who made a change or an attempt: the actor in the metadata of every admin write and in every
 * audit entry. `oidc`: a person signed in with the organisation's identity provider (subject: the
 * token's `sub`); `api_key`: automation (subject: the key's id); `bootstrap`: the embedded
 * default's ADMIN_TOKEN, or an operator at the command line with the store's own credentials.
 */
export interface ActorRecord {
  readonly kind: 'oidc' | 'api_key' | 'bootstrap';
  readonly subject: string;
  readonly display: string;
  /**
   * Whether the display can be trusted to name this actor, so that the audit trail may be searched
   * by it. `oidc`: only an email the provider marked verified (a username or an unverified email is
   * what the person typed, and may be someone else's). `api_key` and `bootstrap`: always — the
   * key's name is given by an admin, `bootstrap token` is ours, and the command line's name by
   * whoever holds the store's own credentials; none is asserted by a third party. Absent from
   * events written before it existed: read as false for `oidc`, true for the others.
   */
  readonly displayVerified: boolean;
}

export type ApiKeyIssued = Event<
  'ApiKeyIssued',
  {
    readonly keyId: string;
    readonly name: string;
    readonly role: OperatorRole;
    /** SHA-256 of the key (hex): the key itself is in the answer to the issuing call only. */
    readonly keyDigest: string;
    readonly expiresAt: string | null;
    readonly issuedAt: string;
  }
>;

export type ApiKeyRevoked = Event<'ApiKeyRevoked', { readonly keyId: string; readonly revokedAt: string }>;

export type ApiKeyEvent = ApiKeyIssued | ApiKeyRevoked;

/** Command-line operations recorded for the audit trail, one stream each (`operator_action-<uuid>`). */
export type OperatorActionRecorded = Event<
  'OperatorActionRecorded',
  {
    readonly action: 'replay' | 'rebuild_read_models' | 'rotate_encryption_key' | 'redispatch_parked';
    /** What the operator asked for (options as given, never a credential). */
    readonly detail: Readonly<Record<string, string | number | boolean | null>>;
    readonly at: string;
  }
>;
