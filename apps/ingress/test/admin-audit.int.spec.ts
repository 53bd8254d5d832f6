/**
 * The audit trail: who did what to a routine, newest first — admin writes from their events'
 * actor, and refused attempts (401/403) recorded without the credential presented.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '@wts/testing';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';

interface AuditEntry {
  at: string;
  actor: { kind: string; subject: string; display: string } | null;
  action: string;
  target: { type: string; id: string | null; routine_id: string | null };
  outcome: 'succeeded' | 'denied';
  trace_id: string | null;
  detail: string | null;
}

interface AuditPage {
  entries: AuditEntry[];
  next_cursor: string | null;
}

describe('the audit trail', () => {
  const t = useIngressTestApp();
  const keys: Record<'viewer' | 'operator', { id: string; key: string }> = { viewer: { id: '', key: '' }, operator: { id: '', key: '' } };
  let routineId = '';

  const audit = async (query: string): Promise<AuditPage> =>
    (await t.adminOk('GET', `/admin/audit?${query}`, undefined, 200)) as unknown as AuditPage;

  beforeAll(async () => {
    keys.viewer = (await t.adminOk('POST', '/admin/api-keys', { name: 'Vic (viewer)', role: 'viewer' }, 201)) as unknown as {
      id: string;
      key: string;
    };
    keys.operator = (await t.adminOk('POST', '/admin/api-keys', { name: 'Ada (operator)', role: 'operator' }, 201)) as unknown as {
      id: string;
      key: string;
    };
    routineId = (await t.setupWebhook()).routineId;
  });

  it('a viewer cannot rotate, an operator can, and the routine’s trail lists both attempts with their subjects, newest first', async () => {
    const refused = await t.admin('POST', `/admin/routines/${routineId}/webhook/rotate`, {}, keys.viewer.key);
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: 'insufficient_role', required_role: 'operator' });
    const rotated = await t.admin('POST', `/admin/routines/${routineId}/webhook/rotate`, {}, keys.operator.key);
    expect(rotated.status).toBe(200);

    const trail = await eventually(
      async () => {
        const page = await audit(`routine_id=${routineId}`);
        return page.entries.some((entry) => entry.action === 'webhook.rotate' && entry.outcome === 'succeeded') ? page : undefined;
      },
      5_000,
      'the rotation projected',
    );
    const rotations = trail.entries.filter((entry) => entry.action === 'webhook.rotate');
    expect(rotations).toEqual([
      expect.objectContaining({
        outcome: 'succeeded',
        actor: { kind: 'api_key', subject: keys.operator.id, display: 'Ada (operator)' },
        target: expect.objectContaining({ routine_id: routineId }),
        trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      }),
      expect.objectContaining({
        outcome: 'denied',
        actor: { kind: 'api_key', subject: keys.viewer.id, display: 'Vic (viewer)' },
        target: { type: 'routine', id: routineId, routine_id: routineId },
        detail: 'insufficient_role: needs operator, has viewer',
        trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      }),
    ]);
    // The set-up (routine created, webhook enabled) is on the trail too, by the bootstrap token, oldest last.
    const actions = trail.entries.map((entry) => entry.action);
    expect(actions.indexOf('webhook.enable')).toBeGreaterThan(actions.indexOf('webhook.rotate'));
    expect(trail.entries.find((entry) => entry.action === 'routine.create')?.actor).toEqual({
      kind: 'bootstrap',
      subject: 'bootstrap',
      display: 'bootstrap token',
    });
    const times = trail.entries.map((entry) => entry.at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('a refused credential is recorded as a denied attempt by nobody, and the credential is stored nowhere', async () => {
    const presented = 'wtk_' + 'Z'.repeat(43);
    expect((await t.admin('POST', `/admin/routines/${routineId}/webhook/disable`, {}, presented)).status).toBe(401);
    const bogusJwt = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJtYWxsb3J5In0.';
    expect((await t.admin('GET', '/admin/api-keys', undefined, bogusJwt)).status).toBe(401);
    const page = await audit(`routine_id=${routineId}`);
    expect(page.entries.find((entry) => entry.action === 'webhook.disable')).toMatchObject({
      outcome: 'denied',
      actor: null,
      detail: 'unknown_credential',
    });
    const everything = JSON.stringify(await audit('limit=1000'));
    expect(everything).not.toContain(presented);
    expect(everything).not.toContain(bogusJwt);
    for (const file of readdirSync(t.dataDir)) {
      const bytes = readFileSync(join(t.dataDir, file));
      expect(bytes.includes(presented)).toBe(false);
      expect(bytes.includes(keys.viewer.key)).toBe(false);
    }
  });

  it('filters by actor (subject, or display in any case) and pages newest first', async () => {
    const byKey = await audit(`actor=${keys.operator.id}`);
    expect(byKey.entries.length).toBeGreaterThan(0);
    expect(byKey.entries.every((entry) => entry.actor?.subject === keys.operator.id)).toBe(true);
    const byName = await audit(`actor=${encodeURIComponent('ada (OPERATOR)')}`);
    expect(byName.entries).toEqual(byKey.entries);

    const all = (await audit('limit=1000')).entries;
    const walked: AuditEntry[] = [];
    let cursor: string | null = null;
    do {
      const page: AuditPage = await audit(`limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      walked.push(...page.entries);
      cursor = page.next_cursor;
    } while (cursor);
    expect(walked).toEqual(all);
  });

  it('refuses a malformed filter with a clear 400', async () => {
    expect((await t.admin('GET', '/admin/audit?routine_id=nope')).status).toBe(400);
    expect((await t.admin('GET', '/admin/audit?limit=0')).status).toBe(400);
    expect((await t.admin('GET', '/admin/audit?cursor=not-a-cursor')).status).toBe(400);
  });
});
