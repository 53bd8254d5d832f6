import type { ApiKeyEvent } from '@wts/contracts';
import { T0, T1, specFor } from '@wts/testing';
import {
  MAX_LIVE_API_KEYS,
  apiKeyDecider,
  apiKeyStanding,
  evolveApiKeyCatalog,
  initialApiKeyCatalog,
  type ApiKeyCommand,
} from './api-key.decider';

const spec = specFor(apiKeyDecider);
const DIGEST = 'a'.repeat(64);

type Issue = Extract<ApiKeyCommand, { type: 'IssueApiKey' }>;
const issue = (keyId: string, extra: Partial<Issue> = {}): Issue => ({
  type: 'IssueApiKey',
  keyId,
  name: 'deploy bot',
  role: 'operator',
  keyDigest: DIGEST,
  expiresAt: null,
  now: T1,
  ...extra,
});
const issued = (keyId: string, extra: Partial<Extract<ApiKeyEvent, { type: 'ApiKeyIssued' }>['data']> = {}): ApiKeyEvent => ({
  type: 'ApiKeyIssued',
  data: { keyId, name: 'deploy bot', role: 'operator', keyDigest: DIGEST, expiresAt: null, issuedAt: T0, ...extra },
});
const revoked = (keyId: string): ApiKeyEvent => ({ type: 'ApiKeyRevoked', data: { keyId, revokedAt: T0 } });

describe('API key decider', () => {
  it('issues a key with its role, digest and expiry; the name is trimmed', () => {
    spec
      .given([])
      .when(issue('key_1', { name: '  deploy bot ', expiresAt: '2030-01-01T00:00:00.000Z' }))
      .then([
        {
          type: 'ApiKeyIssued',
          data: {
            keyId: 'key_1',
            name: 'deploy bot',
            role: 'operator',
            keyDigest: DIGEST,
            expiresAt: '2030-01-01T00:00:00.000Z',
            issuedAt: T1,
          },
        },
      ]);
  });

  it.each<[string, Partial<Issue>, RegExp]>([
    ['an empty name', { name: '   ' }, /name/],
    ['an over-long name', { name: 'x'.repeat(101) }, /name/],
    ['a control-character name', { name: 'a\u0000b' }, /control/],
    ['an expiry at the present instant, not in the future', { expiresAt: T1 }, /future/],
    ['an expiry in the past', { expiresAt: T0 }, /future/],
    ['an expiry that cannot be read as a time, 2020-W01 (it would otherwise never expire)', { expiresAt: '2020-W01' }, /future/],
    ['an expiry that cannot be read as a time, 20200101 (it would otherwise never expire)', { expiresAt: '20200101' }, /future/],
    ['an expiry that cannot be read as a time, tomorrow (it would otherwise never expire)', { expiresAt: 'tomorrow' }, /future/],
    ['an expiry that cannot be read as a time, empty (it would otherwise never expire)', { expiresAt: '' }, /future/],
  ])('refuses %s', (_case, extra, detail) => {
    spec.given([]).when(issue('key_1', extra)).thenRejects('validation_failed', detail);
  });

  it('never issues the same id twice', () => {
    spec
      .given([issued('key_1')])
      .when(issue('key_1'))
      .thenRejects('concurrent_modification');
  });

  it('caps the live keys, counting neither revoked nor expired ones', () => {
    const live = Array.from({ length: MAX_LIVE_API_KEYS }, (_, n) => issued(`key_${n}`));
    spec
      .given(live)
      .when(issue('key_new'))
      .thenRejects('api_key_limit_reached', /revoke/);
    spec
      .given([...live, revoked('key_0')])
      .when(issue('key_new'))
      .then([issued('key_new', { issuedAt: T1 })]);
    const expiring = [...live.slice(1), issued('key_0', { expiresAt: T0 })];
    spec
      .given(expiring)
      .when(issue('key_new'))
      .then([issued('key_new', { issuedAt: T1 })]);
  });

  it('revokes a key once; revoking again changes nothing; an unknown key is not found', () => {
    spec
      .given([issued('key_1')])
      .when({ type: 'RevokeApiKey', keyId: 'key_1', now: T1 })
      .then([{ type: 'ApiKeyRevoked', data: { keyId: 'key_1', revokedAt: T1 } }]);
    spec
      .given([issued('key_1'), revoked('key_1')])
      .when({ type: 'RevokeApiKey', keyId: 'key_1', now: T1 })
      .then([]);
    spec.given([]).when({ type: 'RevokeApiKey', keyId: 'key_x', now: T1 }).thenRejects('api_key_not_found');
  });

  it('a key is live until revoked or past its expiry', () => {
    const key = (events: ApiKeyEvent[]) => events.reduce(evolveApiKeyCatalog, initialApiKeyCatalog()).keys.get('key_1')!;
    const at = (iso: string): number => Date.parse(iso);
    expect(apiKeyStanding(key([issued('key_1')]), at(T1))).toBe('live');
    expect(apiKeyStanding(key([issued('key_1'), revoked('key_1')]), at(T1))).toBe('revoked');
    expect(apiKeyStanding(key([issued('key_1', { expiresAt: T1 })]), at(T0))).toBe('live');
    expect(apiKeyStanding(key([issued('key_1', { expiresAt: T1 })]), at(T1))).toBe('expired');
  });

  it('given a key stored with an expiry that cannot be read as a time, then it counts as expired, not live forever', () => {
    const key = (expiresAt: string) => evolveApiKeyCatalog(initialApiKeyCatalog(), issued('key_1', { expiresAt })).keys.get('key_1')!;
    for (const expiresAt of ['2020-W01', '20200101', 'never']) expect(apiKeyStanding(key(expiresAt), Date.parse(T0))).toBe('expired');
  });

  it('given a live-key count at the cap made of keys with unreadable expiries, then a new key is issued (they are not live)', () => {
    const unreadable = Array.from({ length: MAX_LIVE_API_KEYS }, (_, n) => issued(`key_${n}`, { expiresAt: '20200101' }));
    spec
      .given(unreadable)
      .when(issue('key_new'))
      .then([issued('key_new', { issuedAt: T1 })]);
  });
});
