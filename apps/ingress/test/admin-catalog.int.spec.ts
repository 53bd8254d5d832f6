/**
 * DESIGN "Admin API": bearer admin token (else 401 problem), snake_case fields, accounts and
 * routines exactly as the table says, validation errors as 400 `validation_failed`.
 */
import { useIngressTestApp, TEST_ADMIN_TOKEN } from '../../../test/support/ingress-test-app';
import type { Json } from '../../../test/support/ingress-http.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';

describe('admin API: token, accounts, routines', () => {
  const t = useIngressTestApp();

  describe('admin token', () => {
    const calls: [string, string, unknown][] = [
      ['GET', '/admin/accounts', undefined],
      ['POST', '/admin/accounts', { email: 'x@example.com' }],
      ['PATCH', '/admin/accounts/acc_AAAAAAAAAAAAAAAAAAAAAA', { active: false }],
      ['POST', '/admin/routines', { name: 'n', instructions: 'i', tools: [], mode: 'supervised', account_scope: [] }],
      ['GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA', undefined],
      ['GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook', undefined],
      [
        'POST',
        '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook/enable',
        { default_account: 'x@example.com', account_override_allowed: false },
      ],
      ['POST', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook/rotate', undefined],
      ['POST', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook/disable', undefined],
      ['GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook/deliveries', undefined],
      ['GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/runs', undefined],
      ['GET', '/admin/runs/run_AAAAAAAAAAAAAAAAAAAAAA', undefined],
    ];

    it.each(calls)('%s %s → 401 problem without a token, with a wrong one, or with another scheme', async (method, path, body) => {
      const headers = (authorization?: string): Record<string, string> => ({
        ...(authorization === undefined ? {} : { authorization }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      });
      const payload = body === undefined ? undefined : JSON.stringify(body);
      for (const authorization of [
        undefined,
        'Bearer wrong-token-wrong-token',
        `Basic ${TEST_ADMIN_TOKEN}`,
        `Bearer ${TEST_ADMIN_TOKEN}x`,
        TEST_ADMIN_TOKEN,
      ]) {
        const result = await t.http(method, path, { headers: headers(authorization), body: payload });
        expectProblem(result, 401, 'unauthorized');
      }
    });

    it('nothing was created by refused calls', async () => {
      expect((await t.adminOk('GET', '/admin/accounts', undefined, 200)).accounts).toEqual([]);
    });

    it('accepts the token with the scheme word in any case', async () => {
      const result = await t.http('GET', '/admin/accounts', { headers: { authorization: `bearer ${TEST_ADMIN_TOKEN}` } });
      expect(result.status).toBe(200);
    });
  });

  describe('accounts', () => {
    let first: Json;
    let second: Json;

    it('POST /admin/accounts → 201 with id acc_…, email, aliases, active, primary (the first account is primary)', async () => {
      const result = await t.admin('POST', '/admin/accounts', { email: 'owner@example.com', aliases: ['Team@Example.com'] });
      expect(result.status).toBe(201);
      first = result.json;
      expect(first).toEqual({
        id: expect.stringMatching(/^acc_[A-Za-z0-9_-]{16,}$/),
        email: 'owner@example.com',
        aliases: ['Team@Example.com'],
        active: true,
        primary: true,
      });

      second = await t.adminOk('POST', '/admin/accounts', { email: 'second@example.com' }, 201);
      expect(second).toEqual({
        id: expect.stringMatching(/^acc_/),
        email: 'second@example.com',
        aliases: [],
        active: true,
        primary: false,
      });
    });

    it('GET /admin/accounts → {accounts: [...]}', async () => {
      const list = await t.adminOk('GET', '/admin/accounts', undefined, 200);
      expect(Object.keys(list)).toEqual(['accounts']);
      expect(list.accounts).toEqual(expect.arrayContaining([first, second]));
      expect(list.accounts).toHaveLength(2);
    });

    it('PATCH /admin/accounts/{id} → 200 account; aliases, active and primary change', async () => {
      const aliased = await t.adminOk('PATCH', `/admin/accounts/${second.id}`, { aliases: ['alt@example.com'] }, 200);
      expect(aliased).toEqual({ ...second, aliases: ['alt@example.com'] });
      const inactive = await t.adminOk('PATCH', `/admin/accounts/${second.id}`, { active: false }, 200);
      expect(inactive.active).toBe(false);
      const primary = await t.adminOk('PATCH', `/admin/accounts/${second.id}`, { primary: true, active: true }, 200);
      expect(primary).toMatchObject({ active: true, primary: true });
      const list = (await t.adminOk('GET', '/admin/accounts', undefined, 200)).accounts as Json[];
      expect(list.filter((a) => a.primary).map((a) => a.id)).toEqual([second.id]);
    });

    it('a new account can be made primary at creation', async () => {
      const third = await t.adminOk('POST', '/admin/accounts', { email: 'third@example.com', primary: true }, 201);
      expect(third.primary).toBe(true);
      const list = (await t.adminOk('GET', '/admin/accounts', undefined, 200)).accounts as Json[];
      expect(list.filter((a) => a.primary).map((a) => a.id)).toEqual([third.id]);
    });

    it.each([
      ['the same email', { email: 'owner@example.com' }],
      ['the same email in another case', { email: 'OWNER@example.COM' }],
      ['an email that is an alias of another account', { email: 'team@example.com' }],
      ['an alias that is the email of another account', { email: 'new1@example.com', aliases: ['Second@example.com'] }],
    ])('409 for %s', async (_name, body) => {
      expectProblem(await t.admin('POST', '/admin/accounts', body), 409);
    });

    it('409 when a PATCH gives an alias that another account owns', async () => {
      expectProblem(await t.admin('PATCH', `/admin/accounts/${second.id}`, { aliases: ['owner@example.com'] }), 409);
    });

    it('PATCH of an unknown account → 404 problem', async () => {
      expectProblem(await t.admin('PATCH', '/admin/accounts/acc_AAAAAAAAAAAAAAAAAAAAAA', { active: false }), 404);
    });

    it.each([
      ['no email', {}],
      ['an email that is not an address', { email: 'not-an-email' }],
      ['an email that is not a string', { email: 42 }],
      ['aliases that are not a list', { email: 'v1@example.com', aliases: 'a@example.com' }],
      ['an alias that is not an address', { email: 'v2@example.com', aliases: ['nope'] }],
      ['primary that is not a boolean', { email: 'v3@example.com', primary: 'yes' }],
      ['an unknown field', { email: 'v4@example.com', admin: true }],
    ])('POST /admin/accounts with %s → 400 validation_failed', async (_name, body) => {
      expectProblem(await t.admin('POST', '/admin/accounts', body), 400, 'validation_failed');
    });

    it.each([
      ['active that is not a boolean', { active: 'no' }],
      ['an unknown field', { email: 'changed@example.com' }],
    ])('PATCH /admin/accounts with %s → 400 validation_failed', async (_name, body) => {
      expectProblem(await t.admin('PATCH', `/admin/accounts/${first.id}`, body), 400, 'validation_failed');
    });

    it('a body that is not JSON → 400 validation_failed; a non-JSON content type → 415', async () => {
      const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
      expectProblem(await t.http('POST', '/admin/accounts', { headers, body: '{"email":' }), 400, 'validation_failed');
      const text = await t.http('POST', '/admin/accounts', {
        headers: { ...headers, 'content-type': 'text/plain' },
        body: '{"email":"t@example.com"}',
      });
      expectProblem(text, 415);
    });
  });

  describe('routines', () => {
    let account: Json;
    let routine: Json;
    const definition = (accountId: string): Json => ({
      name: 'Triage',
      instructions: 'Triage the incoming ticket.',
      tools: [
        { name: 'create_ticket', sends_externally: false },
        { name: 'send_email', sends_externally: true },
      ],
      mode: 'supervised',
      account_scope: [accountId],
    });

    beforeAll(async () => {
      account = await t.createAccount();
    });

    it('POST /admin/routines → 201 with id rtn_… and the snake_case fields', async () => {
      const result = await t.admin('POST', '/admin/routines', definition(account.id));
      expect(result.status).toBe(201);
      routine = result.json;
      expect(routine).toMatchObject({ id: expect.stringMatching(/^rtn_[A-Za-z0-9_-]{16,}$/), ...definition(account.id) });
    });

    it('GET /admin/routines/{id} → the routine', async () => {
      expect(await t.adminOk('GET', `/admin/routines/${routine.id}`, undefined, 200)).toEqual(routine);
    });

    it('PATCH /admin/routines/{id} → 200 routine with the changed fields only', async () => {
      const other = await t.createAccount();
      const patched = await t.adminOk(
        'PATCH',
        `/admin/routines/${routine.id}`,
        { mode: 'autonomous', account_scope: [account.id, other.id] },
        200,
      );
      expect(patched).toMatchObject({
        ...definition(account.id),
        id: routine.id,
        mode: 'autonomous',
        account_scope: [account.id, other.id],
      });
      const renamed = await t.adminOk('PATCH', `/admin/routines/${routine.id}`, { name: 'Renamed', instructions: 'New', tools: [] }, 200);
      expect(renamed).toMatchObject({ name: 'Renamed', instructions: 'New', tools: [], mode: 'autonomous' });
      expect(await t.adminOk('GET', `/admin/routines/${routine.id}`, undefined, 200)).toEqual(renamed);
    });

    it('GET and PATCH of an unknown routine → 404 problem', async () => {
      expectProblem(await t.admin('GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA'), 404);
      expectProblem(await t.admin('PATCH', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA', { name: 'x' }), 404);
      expectProblem(await t.admin('GET', '/admin/routines/rtn_AAAAAAAAAAAAAAAAAAAAAA/webhook'), 404);
    });

    it.each([
      ['no name', (id: string) => ({ ...definition(id), name: undefined })],
      ['an empty name', (id: string) => ({ ...definition(id), name: '' })],
      ['no instructions', (id: string) => ({ ...definition(id), instructions: undefined })],
      ['an unknown mode', (id: string) => ({ ...definition(id), mode: 'yolo' })],
      ['tools that are not a list', (id: string) => ({ ...definition(id), tools: 'send_email' })],
      ['a tool without sends_externally', (id: string) => ({ ...definition(id), tools: [{ name: 'send_email' }] })],
      ['a tool with an unknown field', (id: string) => ({ ...definition(id), tools: [{ name: 'x', sends_externally: false, extra: 1 }] })],
      ['an account scope that is not account ids', (id: string) => ({ ...definition(id), account_scope: ['someone@example.com'] })],
      ['no account scope', (id: string) => ({ ...definition(id), account_scope: undefined })],
      ['an unknown field', (id: string) => ({ ...definition(id), owner: 'me' })],
    ])('POST /admin/routines with %s → 400 validation_failed', async (_name, build) => {
      expectProblem(await t.admin('POST', '/admin/routines', build(account.id)), 400, 'validation_failed');
    });

    it.each([
      ['an unknown mode', { mode: 'manual' }],
      ['a name that is not a string', { name: 5 }],
      ['an unknown field', { id: 'rtn_other' }],
    ])('PATCH /admin/routines with %s → 400 validation_failed', async (_name, body) => {
      expectProblem(await t.admin('PATCH', `/admin/routines/${routine.id}`, body), 400, 'validation_failed');
    });

    it('a scope naming an account that does not exist → 400 unknown_scope_account, naming the account', async () => {
      const result = await t.admin('POST', '/admin/routines', definition('acc_AAAAAAAAAAAAAAAAAAAAAA'));
      const problem = expectProblem(result, 400, 'unknown_scope_account');
      expect(problem.detail).toContain('acc_AAAAAAAAAAAAAAAAAAAAAA');
    });
  });
});
