import { API_KEY_CATALOG_STREAM, type OperatorRole } from '@wts/contracts';
import { apiKeyDecider, digestSecret, idFromBytes, isRejection, reject, type Rejection } from '@wts/domain';
import type { UseCaseContext } from '../shared/use-case.context';
import type { AdminCall } from './admin-call';
import { toApiKeyView, type ApiKeyView, type IssuedApiKey } from './api-key.view';

export interface IssueApiKeyInput {
  readonly name: string;
  readonly role: OperatorRole;
  /** ISO 8601; null or absent: the key does not expire (it can still be revoked). */
  readonly expiresAt?: string | null;
}

/** Scoped API keys for automation: issued with a role, shown once, kept as a digest, revoked at once everywhere. */
export class ApiKeysService {
  constructor(private readonly context: UseCaseContext) {}

  async issue(input: IssueApiKeyInput, call: AdminCall): Promise<IssuedApiKey | Rejection> {
    const keyId = idFromBytes('apiKey', this.context.random.bytes(16));
    const key = idFromBytes('apiKeySecret', this.context.random.bytes(32));
    const result = await this.context.run(
      API_KEY_CATALOG_STREAM,
      apiKeyDecider,
      {
        type: 'IssueApiKey',
        keyId,
        name: input.name,
        role: input.role,
        keyDigest: digestSecret(key),
        expiresAt: input.expiresAt ?? null,
        now: this.context.nowIso(),
      },
      call,
    );
    if (isRejection(result)) return result;
    const view = this.view(keyId);
    return isRejection(view) ? view : { ...view, key };
  }

  async list(): Promise<ApiKeyView[]> {
    await this.context.fresh([API_KEY_CATALOG_STREAM]);
    const nowMs = this.context.clock.now().getTime();
    return [...this.context.config.apiKeys().keys.values()]
      .sort((a, b) => b.issuedAt.localeCompare(a.issuedAt))
      .map((key) => toApiKeyView(key, nowMs));
  }

  /** Refused at once on every replica: each checks the catalog's head before it accepts a key. */
  async revoke(keyId: string, call: AdminCall): Promise<ApiKeyView | Rejection> {
    const result = await this.context.run(
      API_KEY_CATALOG_STREAM,
      apiKeyDecider,
      { type: 'RevokeApiKey', keyId, now: this.context.nowIso() },
      call,
    );
    return isRejection(result) ? result : this.view(keyId);
  }

  private view(keyId: string): ApiKeyView | Rejection {
    const key = this.context.config.apiKeys().keys.get(keyId);
    return key ? toApiKeyView(key, this.context.clock.now().getTime()) : reject('api_key_not_found', `no API key ${keyId}`);
  }
}
