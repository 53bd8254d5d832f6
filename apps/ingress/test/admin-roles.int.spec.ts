/**
 * Roles on every admin route, table-driven: each route the controllers declare must be in the
 * table below with the role it needs, and every credential — none; API keys of each role; access
 * tokens of a real OpenID provider (oidc-provider) for each role and for none; the bootstrap token
 * — gets exactly what its role allows: 401 without a credential, 403 `insufficient_role` naming
 * the role needed below it, through at or above. A new admin route that is not in the table, or
 * declares no role, fails here.
 */
import type { OperatorRole } from '@wts/contracts';
import { declaredRoutes } from '../../../test/support/admin-routes.kit';
import type { BotClientId } from '../../../test/support/oidc-provider.harness';
import { adminAccessTokens, useStartedOidcProvider } from '../../../test/support/oidc-provider.kit';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { RequiredAccess } from '../src/access/admin-access.config';

const ROLE_OF_ROUTE: Readonly<Record<string, RequiredAccess>> = {
  'GET /admin/me': 'signed_in',
  'GET /admin/accounts': 'viewer',
  'POST /admin/accounts': 'admin',
  'PATCH /admin/accounts/:id': 'admin',
  'GET /admin/routines': 'viewer',
  'POST /admin/routines': 'admin',
  'GET /admin/routines/:id': 'viewer',
  'PATCH /admin/routines/:id': 'admin',
  'GET /admin/routines/:id/webhook': 'viewer',
  'PATCH /admin/routines/:id/webhook': 'operator',
  'POST /admin/routines/:id/webhook/rules/try': 'operator',
  'POST /admin/routines/:id/webhook/enable': 'operator',
  'POST /admin/routines/:id/webhook/rotate': 'operator',
  'POST /admin/routines/:id/webhook/disable': 'operator',
  'POST /admin/routines/:id/webhook/hold': 'operator',
  'POST /admin/routines/:id/webhook/release': 'operator',
  'GET /admin/routines/:id/webhook/deliveries': 'viewer',
  'GET /admin/routines/:id/webhook/attempts': 'viewer',
  'GET /admin/routines/:id/webhook/replays': 'viewer',
  'GET /admin/routines/:id/webhook/activity/hourly': 'viewer',
  'GET /admin/routines/:id/webhook/parked': 'viewer',
  'GET /admin/routines/:id/runs': 'viewer',
  'GET /admin/runs/:runId': 'viewer',
  'GET /admin/parked': 'viewer',
  'POST /admin/parked/redispatch': 'operator',
  'GET /admin/api-keys': 'admin',
  'POST /admin/api-keys': 'admin',
  'DELETE /admin/api-keys/:id': 'admin',
  'GET /admin/audit': 'viewer',
  'POST /admin/erasures': 'admin',
  'GET /admin/erasures/:id': 'admin',
};

const RANK: Record<RequiredAccess, number> = { signed_in: 0, viewer: 1, operator: 2, admin: 3 };

type Who = 'none' | OperatorRole | 'bootstrap' | `oidc-${OperatorRole}` | 'oidc-no-role';
const HELD: Record<Exclude<Who, 'none'>, RequiredAccess> = {
  viewer: 'viewer',
  operator: 'operator',
  admin: 'admin',
  bootstrap: 'admin',
  'oidc-viewer': 'viewer',
  'oidc-operator': 'operator',
  'oidc-admin': 'admin',
  'oidc-no-role': 'signed_in',
};
const BOT_OF: Record<`oidc-${OperatorRole}` | 'oidc-no-role', BotClientId> = {
  'oidc-viewer': 'viewer-bot',
  'oidc-operator': 'operator-bot',
  'oidc-admin': 'admin-bot',
  'oidc-no-role': 'noroles-bot',
};

describe('admin API roles, every route × every role', () => {
  const provider = useStartedOidcProvider();
  const t = useIngressTestApp({}, undefined, () => ({ accessTokens: adminAccessTokens(provider) }));
  const credentials: Partial<Record<Who, string>> = {};
  let routineId = '';

  beforeAll(async () => {
    for (const [who, bot] of Object.entries(BOT_OF)) credentials[who as Who] = await provider.clientCredentialsToken(bot);
    credentials.bootstrap = t.adminToken;
    for (const role of ['viewer', 'operator', 'admin'] as const) {
      const issued = (await t.adminOk('POST', '/admin/api-keys', { name: `${role} automation`, role }, 201)) as { key: string };
      credentials[role] = issued.key;
    }
    const fixture = await t.setupWebhook();
    routineId = fixture.routineId;
  });

  it('every admin route the controllers declare is in the table, with the role it declares', () => {
    const declared = declaredRoutes(t.app).filter((route) => route.path.startsWith('/admin'));
    const found = Object.fromEntries(declared.map((route) => [`${route.method} ${route.path}`, route.access?.role ?? 'none declared']));
    expect(found).toEqual(ROLE_OF_ROUTE);
    for (const route of declared) expect(route.access?.action).toMatch(/^[a-z_]+\.[a-z_]+$/);
  });

  const cases = Object.entries(ROLE_OF_ROUTE).flatMap(([route, needed]) =>
    (['none', 'viewer', 'operator', 'admin', 'bootstrap', 'oidc-viewer', 'oidc-operator', 'oidc-admin', 'oidc-no-role'] as const).map(
      (who) => ({ route, needed, who }),
    ),
  );

  it.each(cases)('$route as $who', async ({ route, needed, who }) => {
    const [method, template] = route.split(' ');
    const path = template
      .replace(':id/webhook', `${routineId}/webhook`)
      .replace(/^\/admin\/routines\/:id/, `/admin/routines/${routineId}`)
      .replace('/admin/accounts/:id', '/admin/accounts/acc_AAAAAAAAAAAAAAAAAAAAAA')
      .replace('/admin/api-keys/:id', '/admin/api-keys/key_AAAAAAAAAAAAAAAAAAAAAA')
      .replace(':runId', 'run_AAAAAAAAAAAAAAAAAAAAAA');
    const token = who === 'none' ? null : credentials[who]!;
    const body = method === 'GET' || method === 'DELETE' ? undefined : {};
    const result = await t.admin(method, path, body, token);
    if (who === 'none') {
      expect(result.status).toBe(401);
      expect(result.headers.get('www-authenticate')).toBe('Bearer realm="admin"');
      return;
    }
    const held = HELD[who];
    if (RANK[held] < RANK[needed] || (held === 'signed_in' && needed !== 'signed_in')) {
      expect(result.status).toBe(403);
      expect(result.json).toMatchObject({ code: 'insufficient_role', status: 403, required_role: needed });
    } else {
      expect([401, 403]).not.toContain(result.status);
    }
  });
});
