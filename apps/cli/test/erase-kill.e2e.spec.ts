/**
 * `erase` killed with SIGKILL mid-way, as a real OS process on a store of 20,000 deliveries, then
 * run again with --resume: the erasure ends `done`, every matching payload is erased (its run
 * withheld once), and no other delivery is touched — its payload kept byte for byte, its run stream
 * untouched (the dispatcher still makes its one run). Needs `npm run build` (npm test builds first).
 */
import { toAppend } from '@wts/application';
import { Streams, type DeliveryAccepted } from '@wts/contracts';
import { runIdForDelivery } from '@wts/domain';
import { SqliteEventStore } from '@wts/event-store';
import { eventually } from '@wts/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { useTempEventStore } from '../../../test/support/temp-event-store.kit';

const CLI_MAIN = join(__dirname, '..', '..', '..', 'dist', 'apps', 'cli', 'src', 'main.js');
if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: run \`npm run build\` first (npm test does)`);

const DELIVERIES = 20_000;
/** Every MATCH_EVERY-th delivery carries the data subject's address. */
const MATCH_EVERY = 8;
const SUBJECT = `Subject-${randomUUID()}@Example.com`;

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

function start(args: readonly string[], dataDir: string): { child: ChildProcess; exit: Promise<Exit> } {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', DATA_DIR: dataDir, WTS_OPERATOR: 'erasure test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exit = new Promise<Exit>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, exit };
}

async function seed(store: SqliteEventStore): Promise<{ matching: string[]; kept: Map<string, string> }> {
  const matching: string[] = [];
  const kept = new Map<string, string>();
  const routineId = `rtn_${randomBytes(16).toString('base64url')}`;
  const webhookId = `whk_${randomBytes(16).toString('base64url')}`;
  const now = Date.now();
  const one = async (i: number): Promise<void> => {
    const deliveryId = `dlv_${randomBytes(16).toString('base64url')}`;
    const text = JSON.stringify({ n: i, customer: { email: i % MATCH_EVERY === 0 ? SUBJECT : `other-${i}@example.com` } });
    if (i % MATCH_EVERY === 0) matching.push(deliveryId);
    else kept.set(deliveryId, text);
    const data: DeliveryAccepted['data'] = {
      deliveryId,
      webhookId,
      routineId,
      runId: runIdForDelivery(deliveryId),
      triggerAccount: { accountId: 'acc_AAAAAAAAAAAAAAAAAAAAAA', email: 'owner@example.com' },
      payloadFormat: 'json',
      payloadBytes: Buffer.byteLength(text),
      payloadExpiresAt: new Date(now + 86_400_000).toISOString(),
      contentType: 'application/json',
      idempotencyKey: null,
      requestDigest: '0'.repeat(64),
      receivedAt: new Date(now).toISOString(),
    };
    const context = { correlationId: deliveryId, causationId: deliveryId, traceparent: '' };
    const events = toAppend([{ type: 'DeliveryAccepted', data }], context, () => randomUUID());
    const payload = { key: deliveryId, webhookId, format: 'json' as const, text, receivedAt: now, expiresAt: now + 86_400_000 };
    await store.append(Streams.delivery(deliveryId), events, 'no_stream', { payload });
  };
  for (let i = 0; i < DELIVERIES; i += 500) await Promise.all(Array.from({ length: Math.min(500, DELIVERIES - i) }, (_, j) => one(i + j)));
  return { matching, kept };
}

describe('erase, killed with SIGKILL mid-way and resumed', () => {
  jest.setTimeout(60_000);
  const temp = useTempEventStore('erase-kill', 'all');

  it('ends done with every matching payload erased and nothing else touched', async () => {
    const started = Date.now();
    const { matching, kept } = await seed(temp.store);
    process.stderr.write(`[erase-kill] seeded ${DELIVERIES} deliveries in ${Date.now() - started} ms\n`);

    const first = start(['erase', '--contains', SUBJECT.toUpperCase(), '--json'], temp.dir);
    const erasureId = await eventually(
      async () => {
        const [requested] = (await temp.store.readAll({ limit: 1, filter: { streamPrefixes: ['erasure-'] } })).filter(
          (event) => event.type === 'ErasureRequested',
        );
        return requested ? (requested.data as { erasureId: string }).erasureId : undefined;
      },
      20_000,
      'the erasure recorded',
    );
    // Killed once its first window is recorded: the rest is still to do.
    await eventually(
      async () => (await temp.store.readStream(Streams.erasure(erasureId))).some((event) => event.type === 'ErasureProgressed'),
      20_000,
      'a window recorded',
    );
    first.child.kill('SIGKILL');
    expect((await first.exit).signal).toBe('SIGKILL');
    const atKill = await temp.store.readStream(Streams.erasure(erasureId));
    expect(atKill.some((event) => event.type === 'ErasureFinished')).toBe(false);

    const second = await start(['erase', '--resume', erasureId, '--json'], temp.dir).exit;
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ erasure_id: erasureId, status: 'done', erased: matching.length });
    process.stderr.write(`[erase-kill] killed and resumed in ${Date.now() - started} ms in all\n`);

    const payloads = await temp.store.payloads().get([...matching, ...kept.keys(), erasureId]);
    for (const deliveryId of matching) expect(payloads.get(deliveryId)).toMatchObject({ state: 'removed', reason: 'erased', erasureId });
    for (const [deliveryId, text] of kept) expect(payloads.get(deliveryId)).toMatchObject({ state: 'kept', text });
    expect(payloads.get(erasureId)).toMatchObject({ state: 'removed' });

    const runHeads = await temp.store.streamHeads([...matching, ...kept.keys()].map((id) => Streams.run(runIdForDelivery(id))));
    for (const deliveryId of matching) expect(runHeads.get(Streams.run(runIdForDelivery(deliveryId)))).toBe(0n);
    for (const deliveryId of kept.keys()) expect(runHeads.get(Streams.run(runIdForDelivery(deliveryId)))).toBe(-1n);
    const finished = (await temp.store.readStream(Streams.erasure(erasureId))).filter((event) => event.type === 'ErasureFinished');
    expect(finished).toHaveLength(1);
  });
});
