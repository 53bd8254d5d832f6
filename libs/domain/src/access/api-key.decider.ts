import { assertNever, type ApiKeyEvent, type ApiKeyIssued, type OperatorRole } from '@wts/contracts';
import { accept, reject, type Decider, type Decision } from '../shared/decision';

/** A key as it was issued (the event's facts, as evolve keeps them), and when it was revoked. */
export type ApiKey = ApiKeyIssued['data'] & { readonly revokedAt: string | null };

export interface ApiKeyCatalog {
  readonly keys: ReadonlyMap<string, ApiKey>;
}

export type ApiKeyCommand =
  | {
      readonly type: 'IssueApiKey';
      readonly keyId: string;
      readonly name: string;
      readonly role: OperatorRole;
      readonly keyDigest: string;
      readonly expiresAt: string | null;
      readonly now: string;
    }
  | { readonly type: 'RevokeApiKey'; readonly keyId: string; readonly now: string };

/** Keys that are neither revoked nor expired, at most: the catalog stays configuration-sized. */
export const MAX_LIVE_API_KEYS = 500;
export const MAX_API_KEY_NAME_LENGTH = 100;

export const initialApiKeyCatalog = (): ApiKeyCatalog => ({ keys: new Map() });

/** What a key is worth at `now`: only a live key authenticates. */
export function apiKeyStanding(key: ApiKey, nowMs: number): 'live' | 'revoked' | 'expired' {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && !isBefore(nowMs, key.expiresAt)) return 'expired';
  return 'live';
}

/** Whether `nowMs` is before `expiry`; an expiry that cannot be read as a time never is (it fails closed). */
function isBefore(nowMs: number, expiry: string): boolean {
  return Date.parse(expiry) > nowMs;
}

function decide(command: ApiKeyCommand, state: ApiKeyCatalog): Decision<ApiKeyEvent> {
  switch (command.type) {
    case 'IssueApiKey': {
      const name = command.name.trim();
      if (name.length === 0 || name.length > MAX_API_KEY_NAME_LENGTH || /\p{Cc}/u.test(name)) {
        return reject('validation_failed', `name must be 1–${MAX_API_KEY_NAME_LENGTH} characters without control characters`);
      }
      const nowMs = Date.parse(command.now);
      if (command.expiresAt !== null && !isBefore(nowMs, command.expiresAt)) {
        return reject('validation_failed', 'expires_at must be a time in the future');
      }
      if (state.keys.has(command.keyId)) return reject('concurrent_modification', `key ${command.keyId} exists already`);
      const live = [...state.keys.values()].filter((key) => apiKeyStanding(key, nowMs) === 'live').length;
      if (live >= MAX_LIVE_API_KEYS) {
        return reject('api_key_limit_reached', `at most ${MAX_LIVE_API_KEYS} live API keys: revoke one you no longer use first`);
      }
      return accept({
        type: 'ApiKeyIssued',
        data: {
          keyId: command.keyId,
          name,
          role: command.role,
          keyDigest: command.keyDigest,
          expiresAt: command.expiresAt,
          issuedAt: command.now,
        },
      });
    }
    case 'RevokeApiKey': {
      const key = state.keys.get(command.keyId);
      if (!key) return reject('api_key_not_found', `no API key ${command.keyId}`);
      // Revoking twice changes nothing: the first revocation stands.
      if (key.revokedAt !== null) return accept();
      return accept({ type: 'ApiKeyRevoked', data: { keyId: command.keyId, revokedAt: command.now } });
    }
    default:
      return assertNever(command);
  }
}

export function evolveApiKeyCatalog(state: ApiKeyCatalog, event: ApiKeyEvent): ApiKeyCatalog {
  const keys = new Map(state.keys);
  switch (event.type) {
    case 'ApiKeyIssued':
      keys.set(event.data.keyId, { ...event.data, revokedAt: null });
      break;
    case 'ApiKeyRevoked': {
      const key = keys.get(event.data.keyId);
      if (key) keys.set(event.data.keyId, { ...key, revokedAt: event.data.revokedAt });
      break;
    }
    default:
      return assertNever(event);
  }
  return { keys };
}

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyCatalog> = {
  decide,
  evolve: evolveApiKeyCatalog,
  initialState: initialApiKeyCatalog,
};
