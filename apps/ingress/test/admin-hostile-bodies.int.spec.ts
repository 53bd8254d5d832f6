import { useIngressTestApp, TEST_ADMIN_TOKEN } from '../../../test/support/ingress-test-app';
import type { Json } from '../../../test/support/ingress-http.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';

/**
 * Any admin body that is not valid is a 400 problem with a clear message — never a 500, however it
 * is built (issue 10: a body nested 20,000 levels deep overflowed class-transformer's recursion).
 */
describe('admin API: hostile bodies with a valid token', () => {
  const t = useIngressTestApp();

  const post = (path: string, body: string) =>
    t.http('POST', path, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' }, body });
  const nestedArrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const nestedObjects = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

  it.each([
    ['an email nested 20,000 arrays deep', '/admin/accounts', `{"email":${nestedArrays(20_000)}}`],
    ['an email nested 20,000 objects deep', '/admin/accounts', `{"email":${nestedObjects(20_000)}}`],
    ['aliases nested 20,000 arrays deep', '/admin/accounts', `{"email":"deep@example.com","aliases":${nestedArrays(20_000)}}`],
    [
      'tools nested 20,000 objects deep',
      '/admin/routines',
      `{"name":"n","instructions":"i","mode":"supervised","account_scope":[],"tools":[${nestedObjects(20_000)}]}`,
    ],
    ['an unknown field nested 100 levels deep', '/admin/accounts', `{"email":"deep2@example.com","x":${nestedArrays(100)}}`],
    ['a whole body nested 20,000 arrays deep', '/admin/accounts', nestedArrays(20_000)],
  ])('%s answers 400 validation_failed, not 500', async (_label, path, body) => {
    const result = await post(path, body);
    const problem = expectProblem(result, 400, 'validation_failed') as Json;
    expect(problem.errors.join(' ')).toMatch(/nest|must|should|invalid/i);
  });

  it('a body nested within the limit is still judged by its fields (400 naming the field)', async () => {
    const result = await post('/admin/accounts', `{"email":${nestedArrays(10)}}`);
    const problem = expectProblem(result, 400, 'validation_failed') as Json;
    expect(problem.errors.join(' ')).toMatch(/email/);
  });
});
