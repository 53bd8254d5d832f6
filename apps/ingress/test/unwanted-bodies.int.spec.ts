import { connect } from 'node:net';
import { useIngressTestApp, TEST_ADMIN_TOKEN } from '../../../test/support/ingress-test-app';
import { CREDENTIAL_REQUIRED } from '../src/access/operator.admission';

/**
 * Nothing reads a body before something decided it is wanted: an unknown route (404) and an admin
 * route without a valid token (401) answer from the headers alone. Proof: the request declares a
 * 1 MiB body and sends only 1 KiB of it — the answer comes anyway, and the connection is closed
 * rather than drained.
 */
describe('bodies are not read before they are wanted', () => {
  const t = useIngressTestApp();

  const DECLARED_BYTES = 1024 * 1024;

  /** Sends the headers and the first KiB of a declared 1 MiB JSON body; resolves with the answer's head. */
  const partialRequest = (path: string, headers: Record<string, string>): Promise<{ status: number; head: string }> =>
    new Promise((resolve, reject) => {
      const socket = connect(t.port, '127.0.0.1');
      let received = '';
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no answer to ${path} while the body was incomplete`));
      }, 5000);
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return;
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: Number(received.slice(9, 12)), head: received.slice(0, end).toLowerCase() });
      });
      socket.on('error', reject);
      const lines = [`POST ${path} HTTP/1.1`, 'host: 127.0.0.1', 'content-type: application/json', `content-length: ${DECLARED_BYTES}`];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n{"email":"${'a'.repeat(1024)}`);
    });

  it.each([
    ['an unknown path', '/nope', 404, {}],
    ['an unknown path under /admin', '/admin/nope', 404, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }],
    ['an admin route without a token', '/admin/accounts', 401, {}],
    ['an admin route with a wrong token', '/admin/accounts', 401, { authorization: 'Bearer not-the-admin-token-0123456789' }],
    ['an admin route with another scheme', '/admin/routines', 401, { authorization: `Basic ${TEST_ADMIN_TOKEN}` }],
  ])('%s (%s) answers %s from the headers alone', async (_label, path, status, headers) => {
    const answer = await partialRequest(path, headers);
    expect(answer.status).toBe(status);
    expect(answer.head).toContain('content-type: application/problem+json');
    expect(answer.head).toContain('connection: close');
    if (status === 401) expect(answer.head).toContain('www-authenticate: bearer realm="admin"');
  });

  it('the same answers as before for complete requests (problem bodies, codes)', async () => {
    const unknown = await t.http('POST', '/nope', { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ status: 404, code: 'not_found' });
    const unauthorized = await t.http('POST', '/admin/accounts', { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.json).toMatchObject({ status: 401, code: 'unauthorized', detail: CREDENTIAL_REQUIRED });
    const authorized = await t.admin('POST', '/admin/accounts', { email: t.uniqueEmail('wanted') });
    expect(authorized.status).toBe(201);
  });
});
