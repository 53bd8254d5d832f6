import { causedBy, toAppend } from '@wts/application';
import { ACCOUNT_CATALOG_STREAM, API_KEY_CATALOG_STREAM, Streams, type ServiceEvent } from '@wts/contracts';
import { SqliteEventStore } from '@wts/event-store';
import { EMBEDDED_READ_MODEL_FILE, EMBEDDED_STORE_FILE } from '@wts/platform';
import { SqliteReadModelStore, type AuditRow } from '@wts/read-models';
import { eventually } from '@wts/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Json } from '../../../test/support/ingress-http.client';
import { cli } from './cli-harness';
import { appendOrphanDelivery, createAllRuns, seedStore, type SeededStore } from './cli-fixtures';

/** `rebuild-read-models`: the listings emptied and projected again from the store, while the ingress runs. */
describe('rebuild-read-models', () => {
  let seeded: SeededStore;

  beforeAll(async () => {
    seeded = await seedStore();
    await createAllRuns(seeded);
    await appendOrphanDelivery(seeded.app);
  }, 30_000);

  afterAll(async () => {
    await seeded?.app.close();
  });

  async function listings(): Promise<{ deliveries: string[]; runs: string[]; parked: number }> {
    const deliveries: string[] = [];
    const runs: string[] = [];
    for (const hook of seeded.hooks) {
      deliveries.push(...(await seeded.app.deliveries(hook.routineId)).map((d: Json) => d.delivery_id as string));
      runs.push(...(await seeded.app.runs(hook.routineId)).map((r: Json) => r.run_id as string));
    }
    const parked = (await seeded.app.adminOk('GET', '/admin/parked', undefined, 200)).parked as Json[];
    return { deliveries: deliveries.sort(), runs: runs.sort(), parked: parked.length };
  }

  it('refuses to start without --yes, and changes nothing', async () => {
    const result = await cli(['rebuild-read-models'], seeded.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('confirm with --yes');
  });

  it('projects the same listings again from the store, every row once, with the live projector running', async () => {
    const expected = await eventually(
      async () => {
        const now = await listings();
        return now.deliveries.length === seeded.deliveryIds.length && now.runs.length === seeded.deliveryIds.length && now.parked === 1
          ? now
          : undefined;
      },
      5000,
      'the live projector to catch up',
      25,
    );

    const result = await cli(['rebuild-read-models', '--yes', '--json'], seeded.env);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as {
      events: number;
      rows: { delivery: number; run: number; parked: number };
      checkpoint: string;
      interrupted: boolean;
    };
    expect(summary.interrupted).toBe(false);
    expect(summary.checkpoint).toMatch(/^\d+\/\d+$/);
    // Whichever wrote each batch (this command or the live projector), the listings end up the same.
    expect(await listings()).toEqual(expected);
    // Rows this command wrote (the live projector may have won some batches): never more than exist.
    expect(summary.rows.delivery).toBeLessThanOrEqual(seeded.deliveryIds.length + 1);
    expect(summary.rows.run).toBeLessThanOrEqual(seeded.deliveryIds.length);
    expect(summary.rows.parked).toBeLessThanOrEqual(1);
  });

  it('on a terminal, its progress bar ends at 100 % (the events after the last projected one are read too)', async () => {
    // The newest events are not projected (idempotency indexes: no listing and no audit entry).
    for (let i = 0; i < 2; i += 1) {
      await seeded.app.store.append(
        `idempotency_key-${randomUUID()}`,
        toAppend([{ type: 'Other', data: {} }], causedBy('c', 'c'), randomUUID),
        'no_stream',
      );
    }
    const terminal = Object.assign(new PassThrough(), { isTTY: true, columns: 160 });
    let drawn = '';
    terminal.on('data', (chunk: Buffer) => (drawn += chunk.toString('utf8')));
    const result = await cli(['rebuild-read-models', '--yes'], seeded.env, undefined, terminal);
    expect(result.code).toBe(0);
    const percentages = [...drawn.matchAll(/\] (\d+)%/g)].map((match) => Number(match[1]));
    expect(percentages.length).toBeGreaterThan(0);
    expect(percentages[percentages.length - 1]).toBe(100);
  });
});

/** The audit trail, from a store written directly (no ingress): exact counts, as no live projector races the command. */
describe('rebuild-read-models: the audit trail', () => {
  const ROUTINE = 'rtn_RebuildAudit0000000000';
  const WEBHOOK = 'whk_RebuildAudit0000000000';
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wts-cli-audit-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  async function seedAdminWrites(): Promise<void> {
    const store = SqliteEventStore.open(join(dir, EMBEDDED_STORE_FILE));
    const alice = causedBy('req-1', 'req-1', `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, {
      kind: 'oidc',
      subject: 'sub-alice',
      display: 'Alice Example',
      displayVerified: false,
    });
    const bot = causedBy('req-2', 'req-2', '', { kind: 'api_key', subject: 'key_1', display: 'CI bot', displayVerified: true });
    const write = (streamId: string, event: ServiceEvent | { type: string; data: object }, context = alice): Promise<unknown> =>
      store.append(streamId, toAppend([event], context, randomUUID), 'any');
    try {
      await write(ACCOUNT_CATALOG_STREAM, {
        type: 'AccountConnected',
        data: { accountId: 'acc_1', email: 'a@example.com', aliases: [], connectedAt: '2024-05-01T10:00:00.000Z' },
      });
      await write(Streams.webhookSlot(ROUTINE), {
        type: 'WebhookIdAssigned',
        data: { routineId: ROUTINE, webhookId: WEBHOOK, assignedAt: '2024-05-01T10:00:01.000Z' },
      });
      await write(Streams.webhook(WEBHOOK), {
        type: 'WebhookEnabled',
        data: {
          webhookId: WEBHOOK,
          routineId: ROUTINE,
          secretDigest: 'e'.repeat(64),
          defaultAccount: { accountId: 'acc_1', email: 'a@example.com' },
          accountOverrideAllowed: false,
          enabledAt: '2024-05-01T10:00:01.000Z',
        },
      });
      await write(
        Streams.webhook(WEBHOOK),
        { type: 'SecretRotated', data: { webhookId: WEBHOOK, secretDigest: 'f'.repeat(64), rotatedAt: '2024-05-01T10:00:02.000Z' } },
        bot,
      );
      await write(API_KEY_CATALOG_STREAM, {
        type: 'ApiKeyIssued',
        data: {
          keyId: 'key_2',
          name: 'deploy',
          role: 'viewer',
          keyDigest: 'd'.repeat(64),
          expiresAt: null,
          issuedAt: '2024-05-01T10:00:03.000Z',
        },
      });
      await write(Streams.operatorAction(randomUUID()), {
        type: 'OperatorActionRecorded',
        data: { action: 'replay', detail: { target: 'kafka', dry_run: true }, at: '2024-05-01T10:00:04.000Z' },
      });
      // Not projected: read past, never an entry.
      await write(`idempotency_key-${randomUUID()}`, { type: 'Other', data: {} });
    } finally {
      await store.close();
    }
  }

  async function auditTrail(): Promise<AuditRow[]> {
    const readModels = SqliteReadModelStore.open(join(dir, EMBEDDED_READ_MODEL_FILE));
    try {
      return [...(await readModels.audit({}, { limit: 1000 })).items];
    } finally {
      await readModels.close();
    }
  }

  it('projects every admin write again (webhook events get their routine), keeps denied attempts, and counts rows per kind', async () => {
    await seedAdminWrites();
    const denied: AuditRow = {
      entryId: randomUUID(),
      at: '2024-05-01T11:00:00.000Z',
      actor: null,
      action: 'POST /admin/routines',
      targetType: 'admin_api',
      targetId: null,
      routineId: null,
      webhookId: null,
      outcome: 'denied',
      traceId: null,
      detail: 'unauthenticated',
      sourceAddress: '203.0.113.5',
    };
    const readModels = SqliteReadModelStore.open(join(dir, EMBEDDED_READ_MODEL_FILE));
    await readModels.recordDeniedAccess([denied], { perSource: 100, overall: 100 });
    await readModels.close();

    // The rebuild itself is on the trail (recorded before it starts), with its operator.
    const json = await cli(['rebuild-read-models', '--yes', '--json', '--operator', 'ops@example.com'], { DATA_DIR: dir });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      events: 7,
      rows: { delivery: 0, run: 0, parked: 0, webhook_routine: 2, audit: 6 },
      interrupted: false,
    });
    const expected = [
      ['rebuild_read_models', null, 'database=sqlite'],
      [denied.action, null, null],
      ['replay', null, 'target=kafka dry_run=true'],
      ['api_key.issue', null, 'role viewer, name "deploy"'],
      ['webhook.rotate', ROUTINE, null],
      ['webhook.enable', ROUTINE, null],
      ['account.connect', null, null],
    ];
    const summary = (rows: readonly AuditRow[]): unknown[] =>
      rows.map((row) => [row.action, row.routineId, row.outcome === 'denied' ? null : row.detail]);
    const first = await auditTrail();
    expect(summary(first)).toEqual(expected);
    expect(first.find((row) => row.action === 'webhook.rotate')?.actor).toEqual({
      kind: 'api_key',
      subject: 'key_1',
      display: 'CI bot',
      displayVerified: true,
    });
    expect(first[0].actor).toEqual({
      kind: 'bootstrap',
      subject: expect.stringMatching(/^cli:.+@.+$/),
      display: 'ops@example.com',
      displayVerified: true,
    });
    expect(JSON.stringify(first)).not.toMatch(/d{64}|e{64}|f{64}/);

    // Again: emptied and projected once more, the same trail (the denied attempt still there once) under the second rebuild's own entry.
    const text = await cli(['rebuild-read-models', '--yes'], { DATA_DIR: dir, WTS_OPERATOR: 'grace@example.com' });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('8 events projected (0 deliveries, 0 runs, 0 parked, 7 audit entries, 2 webhook routines)');
    const second = await auditTrail();
    expect(second[0]).toMatchObject({ action: 'rebuild_read_models', actor: { display: 'grace@example.com' } });
    expect(second.slice(1)).toEqual(first);
  });
});
