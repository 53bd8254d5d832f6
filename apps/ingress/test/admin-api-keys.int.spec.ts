/**
 * Scoped API keys: issued by an admin with a role, shown once, kept as a digest, listed without
 * the key, refused once revoked — at once, on another replica too — or once expired.
 */
import { API_KEY_CATALOG_STREAM } from '@wts/contracts';
import { digestSecret } from '@wts/domain';
import { eventually } from '@wts/testing';
import { useIngressReplicas } from '../../../test/support/ingress-test-app';
import { expectProblem } from '../../../test/support/problem-details.assertions';

interface IssuedKey {
  id: string;
  key: string;
  name: string;
  role: string;
  status: string;
  expires_at: string | null;
}

describe('API keys', () => {
  const [a, b] = useIngressReplicas();

  const issue = async (body: Record<string, unknown>): Promise<IssuedKey> =>
    (await a.adminOk('POST', '/admin/api-keys', body, 201)) as unknown as IssuedKey;

  it('issues a key shown once (wtk_…, no-store), stores only its digest, lists it without the key', async () => {
    const response = await a.admin('POST', '/admin/api-keys', { name: 'deploy bot', role: 'operator' });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const issued = response.json as unknown as IssuedKey;
    expect(issued).toMatchObject({ name: 'deploy bot', role: 'operator', status: 'live', expires_at: null });
    expect(issued.id).toMatch(/^key_[A-Za-z0-9_-]{22}$/);
    expect(issued.key).toMatch(/^wtk_[A-Za-z0-9_-]{43}$/);

    const stored = JSON.stringify(
      (await a.allEvents()).filter((event) => event.streamId === API_KEY_CATALOG_STREAM).map((event) => [event.data, event.metadata]),
    );
    expect(stored).not.toContain(issued.key);
    expect(stored).toContain(digestSecret(issued.key));

    const listed = await a.adminOk('GET', '/admin/api-keys', undefined, 200);
    const text = JSON.stringify(listed);
    expect(text).toContain(issued.id);
    expect(text).not.toContain(issued.key);
    expect(text).not.toContain(digestSecret(issued.key));
  });

  it('opens what its role allows, on every replica', async () => {
    const viewer = await issue({ name: 'dashboard', role: 'viewer' });
    expect((await b.admin('GET', '/admin/routines', undefined, viewer.key)).status).toBe(200);
    expectProblem(await b.admin('POST', '/admin/accounts', { email: 'x@example.com' }, viewer.key), 403, 'insufficient_role');
  });

  it('a revoked key is refused at once on the other replica; revoking again is 204, an unknown id 404', async () => {
    const key = await issue({ name: 'ci', role: 'viewer' });
    expect((await b.admin('GET', '/admin/me', undefined, key.key)).status).toBe(200);
    expect((await a.admin('DELETE', `/admin/api-keys/${key.id}`)).status).toBe(204);
    expectProblem(await b.admin('GET', '/admin/me', undefined, key.key), 401, 'unauthorized');
    expectProblem(await a.admin('GET', '/admin/me', undefined, key.key), 401, 'unauthorized');
    expect((await b.admin('DELETE', `/admin/api-keys/${key.id}`)).status).toBe(204);
    expectProblem(await a.admin('DELETE', '/admin/api-keys/key_AAAAAAAAAAAAAAAAAAAAAA'), 404, 'api_key_not_found');
    const listed = (await a.adminOk('GET', '/admin/api-keys', undefined, 200)) as unknown as { api_keys: { id: string; status: string }[] };
    expect(listed.api_keys.find((entry) => entry.id === key.id)?.status).toBe('revoked');
  });

  it('an expired key is refused', async () => {
    const soon = new Date(Date.now() + 1500).toISOString();
    const key = await issue({ name: 'short-lived', role: 'viewer', expires_at: soon });
    expect(key.expires_at).toBe(soon);
    expect((await a.admin('GET', '/admin/me', undefined, key.key)).status).toBe(200);
    const refused = await eventually(
      async () => {
        const answer = await a.admin('GET', '/admin/me', undefined, key.key);
        return answer.status === 200 ? undefined : answer; // still valid until it expires; any other answer is checked below
      },
      1700,
      'the key to expire',
    );
    expectProblem(refused, 401, 'unauthorized');
  });

  it('refuses bad requests with a clear error and creates nothing', async () => {
    const before = (await a.allEvents()).length;
    expectProblem(await a.admin('POST', '/admin/api-keys', { name: 'x', role: 'root' }), 400, 'validation_failed');
    expectProblem(await a.admin('POST', '/admin/api-keys', { name: '', role: 'viewer' }), 400, 'validation_failed');
    expectProblem(
      await a.admin('POST', '/admin/api-keys', { name: 'x', role: 'viewer', expires_at: 'tomorrow' }),
      400,
      'validation_failed',
    );
    expectProblem(
      await a.admin('POST', '/admin/api-keys', { name: 'x', role: 'viewer', expires_at: '2001-01-01T00:00:00Z' }),
      400,
      'validation_failed',
    );
    expectProblem(await a.admin('POST', '/admin/api-keys', { name: 'x', role: 'viewer', key: 'wtk_mine' }), 400, 'validation_failed');
    expect((await a.allEvents()).length).toBe(before);
  });

  it('takes expires_at only as a date and time with its offset: a week date or the basic form is a 400, not a key that never expires', async () => {
    const before = (await a.allEvents()).length;
    for (const expiresAt of [
      '2020-W01',
      '20200101',
      '2099-W01',
      '20990101',
      '2099-01-01',
      '2099-01-01T00:00:00',
      '2099-01-01 00:00:00Z',
      // RFC 3339 wants the seconds, and a real day: never rolled over into the next month.
      '2099-01-01T00:00Z',
      '2099-02-31T00:00:00Z',
    ]) {
      const refused = await a.admin('POST', '/admin/api-keys', { name: 'x', role: 'viewer', expires_at: expiresAt });
      expectProblem(refused, 400, 'validation_failed');
      expect(JSON.stringify(refused.json)).toContain('expires_at must be an RFC 3339 date-time with seconds and an offset');
    }
    expect((await a.allEvents()).length).toBe(before);
    const key = await issue({ name: 'offset', role: 'viewer', expires_at: '2099-01-01T01:00:00+01:00' });
    expect(key).toMatchObject({ status: 'live', expires_at: '2099-01-01T01:00:00+01:00' });
  });

  it('a key-shaped credential nobody issued is a 401, as is a key with a character changed', async () => {
    const key = await issue({ name: 'real', role: 'viewer' });
    const changed = key.key.slice(0, -1) + (key.key.endsWith('A') ? 'B' : 'A');
    expectProblem(await a.admin('GET', '/admin/me', undefined, changed), 401, 'unauthorized');
    expectProblem(await a.admin('GET', '/admin/me', undefined, 'wtk_' + 'A'.repeat(43)), 401, 'unauthorized');
  });

  it('who am I: the key names its actor and role', async () => {
    const key = await issue({ name: 'reporting', role: 'operator' });
    const me = await a.admin('GET', '/admin/me', undefined, key.key);
    expect(me.json).toEqual({
      actor: { kind: 'api_key', subject: key.id, display: 'reporting' },
      role: 'operator',
      roles: { viewer: true, operator: true, admin: false },
    });
    const bootstrap = await a.adminOk('GET', '/admin/me', undefined, 200);
    expect(bootstrap).toMatchObject({ actor: { kind: 'bootstrap' }, role: 'admin' });
  });
});
