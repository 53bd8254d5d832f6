import type { OperatorRole } from '@wts/contracts';
import { apiKeyStanding, type ApiKey } from '@wts/domain';

/** An API key as the admin API shows it: never the key, never its digest. */
export interface ApiKeyView {
  readonly id: string;
  readonly name: string;
  readonly role: OperatorRole;
  readonly status: 'live' | 'revoked' | 'expired';
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly revoked_at: string | null;
}

/** The one answer that carries the key itself: the answer to the call that issued it. */
export type IssuedApiKey = ApiKeyView & { readonly key: string };

export function toApiKeyView(key: ApiKey, nowMs: number): ApiKeyView {
  return {
    id: key.keyId,
    name: key.name,
    role: key.role,
    status: apiKeyStanding(key, nowMs),
    created_at: key.issuedAt,
    expires_at: key.expiresAt,
    revoked_at: key.revokedAt,
  };
}
