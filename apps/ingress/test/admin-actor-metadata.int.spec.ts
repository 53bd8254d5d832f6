/**
 * The events are the audit log: every admin write carries who made it (the actor) and the trace of
 * the request in its metadata — never the credential.
 */
import { API_KEY_CATALOG_STREAM, type EventMetadata } from '@wts/contracts';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';

describe('admin writes carry their actor', () => {
  const t = useIngressTestApp();

  it('each event written by an admin call names the credential’s actor and continues the request’s trace', async () => {
    const issued = (await t.adminOk('POST', '/admin/api-keys', { name: 'provisioner', role: 'admin' }, 201)) as { id: string; key: string };
    const before = (await t.allEvents()).length;
    const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;
    const asKey = async (method: string, path: string, body: unknown, expected: number): Promise<Record<string, unknown>> => {
      const result = await t.http(method, path, {
        headers: { authorization: `Bearer ${issued.key}`, 'content-type': 'application/json', traceparent },
        body: JSON.stringify(body),
      });
      expect(result.status).toBe(expected);
      return result.json as Record<string, unknown>;
    };
    const account = await asKey('POST', '/admin/accounts', { email: 'owner@example.com' }, 201);
    await asKey('PATCH', `/admin/accounts/${String(account.id)}`, { aliases: ['alias@example.com'] }, 200);
    const routine = await asKey(
      'POST',
      '/admin/routines',
      { name: 'r', instructions: 'i', tools: [], mode: 'supervised', account_scope: [account.id] },
      201,
    );
    const routineId = String(routine.id);
    await asKey('PATCH', `/admin/routines/${routineId}`, { instructions: 'j' }, 200);
    await asKey(
      'POST',
      `/admin/routines/${routineId}/webhook/enable`,
      { default_account: 'owner@example.com', account_override_allowed: false },
      200,
    );
    await asKey('POST', `/admin/routines/${routineId}/webhook/rotate`, {}, 200);
    await asKey('POST', `/admin/routines/${routineId}/webhook/disable`, {}, 200);
    const other = await asKey('POST', '/admin/api-keys', { name: 'other', role: 'viewer' }, 201);
    const revoked = await t.http('DELETE', `/admin/api-keys/${String(other.id)}`, {
      headers: { authorization: `Bearer ${issued.key}`, traceparent },
    });
    expect(revoked.status).toBe(204);

    const written = (await t.allEvents()).slice(before);
    expect(written.map((event) => event.type)).toEqual([
      'AccountConnected',
      'PrimaryAccountChanged',
      'AccountUpdated',
      'RoutineCreated',
      'RoutineUpdated',
      'WebhookIdAssigned',
      'WebhookEnabled',
      'SecretRotated',
      'WebhookDisabled',
      'ApiKeyIssued',
      'ApiKeyRevoked',
    ]);
    for (const event of written) {
      const metadata = event.metadata as EventMetadata;
      expect({ type: event.type, actor: metadata.actor }).toEqual({
        type: event.type,
        actor: { kind: 'api_key', subject: issued.id, display: 'provisioner', displayVerified: true },
      });
      expect(metadata.traceparent.split('-')[1]).toBe(traceId);
    }
    const text = JSON.stringify(written.map((event) => [event.data, event.metadata]));
    expect(text).not.toContain(issued.key);
    expect(written.filter((event) => event.streamId === API_KEY_CATALOG_STREAM)).toHaveLength(2);
  });

  it('the bootstrap token is the actor `bootstrap`', async () => {
    const before = (await t.allEvents()).length;
    await t.createAccount();
    const [event] = (await t.allEvents()).slice(before);
    expect((event.metadata as EventMetadata).actor).toEqual({
      kind: 'bootstrap',
      subject: 'bootstrap',
      display: 'bootstrap token',
      displayVerified: true,
    });
  });
});
