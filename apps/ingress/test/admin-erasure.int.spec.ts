import { containsDigest } from '@wts/domain';
import { eventually } from '@wts/testing';
import { randomUUID } from 'node:crypto';
import type { ErasureRunnerLifecycle } from '../../run-dispatcher/src/erasure-runner.lifecycle';
import { filesContaining, startErasureRunner } from '../../../test/support/in-process-erasures';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';

type Json = Record<string, unknown>;

/**
 * Erasure on request end to end: a real ingress on an embedded store and SQLite read models, the
 * dispatcher's worker and its erasure runner in process. After `done`, no byte of an erased
 * payload — nor the search string — is in any file under DATA_DIR, while kept payloads still read.
 */
describe('erasure on request (POST/GET /admin/erasures)', () => {
  const t = useIngressTestApp();
  let runner: ErasureRunnerLifecycle;

  beforeAll(async () => {
    await t.startDispatcher();
    runner = startErasureRunner(t.store, t.readModels);
  });
  afterAll(async () => {
    await runner?.onApplicationShutdown();
  });

  /** Delivers one payload per marker and waits for their runs; the run ids, in order. */
  async function deliverAll(hook: WebhookFixture, markers: readonly string[]): Promise<string[]> {
    const runIds: string[] = [];
    for (const marker of markers) {
      const answer = await t.deliver(hook, { body: JSON.stringify({ customer: { note: `about ${marker} here` } }) });
      expect(answer.status).toBe(202);
      runIds.push((answer.json as Json).run_id as string);
    }
    await t.waitForRuns(hook.routineId, markers.length);
    return runIds;
  }

  const erasure = async (body: unknown): Promise<Json> => t.adminOk('POST', '/admin/erasures', body, 202);
  const untilDone = (id: string): Promise<Json> =>
    eventually(
      async () => {
        const answer = (await t.adminOk('GET', `/admin/erasures/${id}`, undefined, 200)) as Json;
        return answer.status === 'running' ? undefined : answer;
      },
      20_000,
      `erasure ${id} finished`,
    );
  const run = async (runId: string): Promise<Json> => (await t.waitForRun(runId)).json as Json;

  async function expectErased(runIds: readonly string[]): Promise<void> {
    for (const runId of runIds) {
      const answer = await run(runId);
      expect(answer).toMatchObject({ payload: null, initial_message: null, payload_state: 'erased' });
      expect(typeof answer.payload_removed_at).toBe('string');
    }
  }

  it('erases by contains (case-insensitively): runs answer erased, no byte of them or of the search string left, others kept', async () => {
    const hook = await t.setupWebhook();
    const erase = [`Erase-Me-${randomUUID()}`, `ERASE-ME-${randomUUID()}`];
    const common = `Subject-${randomUUID()}`;
    const erasedMarkers = erase.map((marker) => `${marker} ${common}`);
    const kept = [`Keep-Me-${randomUUID()}`, `Keep-Me-${randomUUID()}`];
    const erasedRuns = await deliverAll(hook, erasedMarkers);
    const keptRuns = await deliverAll(hook, kept);

    const search = common.toLowerCase();
    const accepted = await erasure({ contains: search });
    expect(accepted).toEqual({
      erasure_id: expect.stringMatching(/^era_/) as string,
      status: 'running',
      selected: 0,
      erased: 0,
      requested_at: expect.any(String) as string,
      finished_at: null,
      kafka_copies_expire_by: null,
    });
    const done = await untilDone(accepted.erasure_id as string);
    expect(done).toMatchObject({ status: 'done', selected: 2, erased: 2, kafka_copies_expire_by: null });
    expect(typeof done.finished_at).toBe('string');

    await expectErased(erasedRuns);
    for (const [i, runId] of keptRuns.entries()) expect(JSON.stringify((await run(runId)).payload)).toContain(kept[i]);

    const needles = [...erase, common, search, ...erase.map((marker) => marker.toLowerCase())];
    expect(filesContaining(t.dataDir, needles)).toEqual([]);
    expect(filesContaining(t.dataDir, kept)).not.toEqual([]);

    const entry = await eventually(
      async () => {
        const page = (await t.adminOk('GET', '/admin/audit', undefined, 200)) as { entries: Json[] };
        return page.entries.find((item) => item.action === 'erase_payloads' && (item.target as Json).id === accepted.erasure_id);
      },
      10_000,
      'the erasure on the audit trail',
    );
    expect(entry.detail).toBe(`contains sha256:${containsDigest(search)}`);
    expect(JSON.stringify(entry)).not.toContain(search);
  });

  it('erases by routine_id and a received range, leaving the rest of the routine', async () => {
    const hook = await t.setupWebhook();
    const before = await deliverAll(hook, [`Before-${randomUUID()}`]);
    const from = new Date().toISOString();
    const inside = [`Inside-${randomUUID()}`, `Inside-${randomUUID()}`];
    const insideRuns = await deliverAll(hook, inside);
    const to = new Date(Date.now() + 1).toISOString();
    const other = await t.setupWebhook();
    const otherRuns = await deliverAll(other, [`Other-${randomUUID()}`]);

    const accepted = await erasure({ routine_id: hook.routineId, received_after: from, received_before: to });
    expect(await untilDone(accepted.erasure_id as string)).toMatchObject({ status: 'done', selected: 2, erased: 2 });
    await expectErased(insideRuns);
    for (const runId of [...before, ...otherRuns]) expect((await run(runId)).payload_state).toBe('kept');
    expect(filesContaining(t.dataDir, inside)).toEqual([]);
  });

  it('erases by delivery ids, leaving the others', async () => {
    const hook = await t.setupWebhook();
    const runIds = await deliverAll(hook, [`ById-${randomUUID()}`, `ById-${randomUUID()}`]);
    const deliveryIds = await Promise.all(runIds.map(async (runId) => (await run(runId)).delivery_id as string));
    const accepted = await erasure({ delivery_ids: [deliveryIds[0]] });
    expect(await untilDone(accepted.erasure_id as string)).toMatchObject({ status: 'done', erased: 1 });
    await expectErased([runIds[0]]);
    expect((await run(runIds[1])).payload_state).toBe('kept');
  });

  it.each<[string, unknown, string]>([
    ['an empty selection', {}, 'select at least one of'],
    ['an empty delivery_ids', { delivery_ids: [] }, 'delivery_ids must name at least one delivery'],
    ['1001 delivery_ids', { delivery_ids: Array.from({ length: 1001 }, () => 'dlv_AAAAAAAAAAAAAAAAAAAAAA') }, 'at most 1000'],
    ['a malformed delivery id', { delivery_ids: ['dlv_x'] }, 'each of delivery_ids must be a delivery id'],
    ['a malformed routine id', { routine_id: 'routine' }, 'routine_id must be a routine id'],
    ['an unknown routine', { routine_id: 'rtn_AAAAAAAAAAAAAAAAAAAAAA' }, 'routine_id names no routine'],
    ['a trigger_account that is no email', { trigger_account: 'nobody' }, 'trigger_account must be an email address'],
    ['a date without a time', { received_after: '2026-01-01' }, 'received_after must be an RFC 3339 date-time'],
    ['a time without an offset', { received_before: '2026-01-01T00:00:00' }, 'received_before must be an RFC 3339 date-time'],
    [
      'after not before before',
      { received_after: '2026-01-02T00:00:00Z', received_before: '2026-01-01T00:00:00Z' },
      'received_after must be earlier than received_before',
    ],
    ['contains of 2 characters', { contains: 'ab' }, 'contains must be 3–512 characters'],
    ['contains of 513 characters', { contains: 'a'.repeat(513) }, 'contains must be 3–512 characters'],
    ['contains that is no string', { contains: 12345 }, 'contains must be a string'],
    ['a null selector', { routine_id: null }, 'routine_id must be a routine id'],
    ['an unknown field', { contains: 'abc', everything: true }, 'property everything should not exist'],
  ])('400 validation_failed for %s, naming the field', async (_why, body, message) => {
    const answer = await t.admin('POST', '/admin/erasures', body);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 'validation_failed' });
    expect(JSON.stringify(answer.json)).toContain(message);
  });

  it('404 erasure_not_found for an unknown or a malformed id', async () => {
    for (const id of ['era_AAAAAAAAAAAAAAAAAAAAAA', 'nope', 'dlv_AAAAAAAAAAAAAAAAAAAAAA']) {
      const answer = await t.admin('GET', `/admin/erasures/${id}`);
      expect(answer.status).toBe(404);
      expect(answer.json).toMatchObject({ code: 'erasure_not_found' });
    }
  });

  it('403 insufficient_role for a viewer or an operator key, on both routes', async () => {
    for (const role of ['viewer', 'operator']) {
      const key = (await t.adminOk('POST', '/admin/api-keys', { name: `erasure-${role}`, role }, 201)).key as string;
      const post = await t.admin('POST', '/admin/erasures', { contains: 'abc' }, key);
      expect(post.status).toBe(403);
      expect(post.json).toMatchObject({ code: 'insufficient_role' });
      expect((await t.admin('GET', '/admin/erasures/era_AAAAAAAAAAAAAAAAAAAAAA', undefined, key)).status).toBe(403);
    }
  });
});
