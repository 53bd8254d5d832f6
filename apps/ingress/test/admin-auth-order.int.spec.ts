import { useIngressTestApp, TEST_ADMIN_TOKEN } from '../../../test/support/ingress-test-app';

/** The admin token is checked before anything about the body: no body error leaks past a 401. */
describe('admin API: 401 before body errors', () => {
  const app = useIngressTestApp();

  const send = (headers: Record<string, string>, body: string) => fetch(`${app.baseUrl}/admin/accounts`, { method: 'POST', headers, body });

  it.each([
    ['malformed JSON', { 'content-type': 'application/json' }, '{"email":'],
    ['a non-JSON content type', { 'content-type': 'text/plain' }, 'hello'],
    ['an oversized body', { 'content-type': 'application/json' }, JSON.stringify({ email: 'a@example.com', pad: 'x'.repeat(1_100_000) })],
  ])('without a token, %s answers 401', async (_label, headers, body) => {
    const response = await send(headers, body);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('unauthorized');
  });

  it('with the token, the same malformed JSON answers 400 validation_failed', async () => {
    const response = await send({ 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, '{"email":');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('validation_failed');
  });
});

describe('admin API: malformed headers and null fields', () => {
  const app = useIngressTestApp();

  it('a syntactically invalid Content-Type without a token is 401, with the token 415', async () => {
    const send = (headers: Record<string, string>) =>
      fetch(`${app.baseUrl}/admin/accounts`, { method: 'POST', headers: { 'content-type': ';;;', ...headers }, body: '{}' });
    expect((await send({})).status).toBe(401);
    const authorised = await send({ authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
    expect(authorised.status).toBe(415);
    expect(((await authorised.json()) as { code: string }).code).toBe('unsupported_media_type');
  });

  it.each([
    ['tools', null],
    ['mode', null],
    ['name', null],
    ['instructions', null],
    ['account_scope', null],
    ['tools', [[{ name: 'email.send', sends_externally: true }]]],
  ])('PATCH routine with %s = %j is 400 validation_failed and changes nothing', async (field, value) => {
    const account = await app.admin('POST', '/admin/accounts', { email: `n-${field}-${Math.random().toString(36).slice(2)}@example.com` });
    const accountId = (account.json as { id: string }).id;
    const created = await app.admin('POST', '/admin/routines', {
      name: 'R',
      instructions: 'i',
      tools: [],
      mode: 'supervised',
      account_scope: [accountId],
    });
    const routineId = (created.json as { id: string }).id;
    const patched = await app.admin('PATCH', `/admin/routines/${routineId}`, { [field]: value });
    expect(patched.status).toBe(400);
    expect((patched.json as { code: string }).code).toBe('validation_failed');
    const after = await app.admin('GET', `/admin/routines/${routineId}`);
    expect(after.json).toEqual(created.json);
  });

  it.each([['aliases'], ['active'], ['primary']])('PATCH account with %s = null is 400', async (field) => {
    const account = await app.admin('POST', '/admin/accounts', { email: `a-${field}@example.com` });
    const patched = await app.admin('PATCH', `/admin/accounts/${(account.json as { id: string }).id}`, { [field]: null });
    expect(patched.status).toBe(400);
  });
});
