import { IngressTestApp, TEST_ADMIN_TOKEN } from '../../../test/support/ingress-test-app';

/** The admin token is checked before anything about the body: no body error leaks past a 401. */
describe('admin API: 401 before body errors', () => {
  let app: IngressTestApp;

  beforeAll(async () => {
    app = await IngressTestApp.start();
  });

  afterAll(async () => {
    await app.close();
  });

  const send = (headers: Record<string, string>, body: string) =>
    fetch(`${app.baseUrl}/admin/accounts`, { method: 'POST', headers, body });

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
