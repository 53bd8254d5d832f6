import { eventually } from '@wts/testing';
import { randomUUID } from 'node:crypto';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import { cli } from './cli-harness';

/** `erase` in process: usage errors (exit 2, naming the flag), and an erasure run here to `done` (exit 0), as the operator. */
describe('erase (command line)', () => {
  const t = useIngressTestApp();

  it.each<[string, string[], string]>([
    ['no selector', [], 'select at least one of --delivery-id'],
    ['a short --contains', ['--contains', 'ab'], '--contains must be 3–512 characters'],
    ['a bad --received-after', ['--received-after', '2026-01-01'], '--received-after must be an RFC 3339 date-time'],
    ['a bad --delivery-id', ['--delivery-id', 'nope'], 'each of --delivery-id must be a delivery id'],
    ['--resume with a selector', ['--resume', 'era_AAAAAAAAAAAAAAAAAAAAAA', '--contains', 'abc'], '--resume takes no selectors'],
    ['an unknown routine', ['--routine-id', 'rtn_AAAAAAAAAAAAAAAAAAAAAA'], 'routine_id names no routine'],
  ])('exits 2 for %s', async (_why, args, message) => {
    const result = await cli(['erase', ...args], { DATA_DIR: t.dataDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('records the request as the operator and runs it to done here (exit 0), printing the answer', async () => {
    const hook = await t.setupWebhook();
    const marker = `Cli-Marker-${randomUUID()}`;
    const accepted = await t.deliver(hook, { body: JSON.stringify({ note: marker }) });
    expect(accepted.status).toBe(202);
    const result = await cli(['erase', '--contains', marker, '--json', '--operator', 'Ana Operator'], { DATA_DIR: t.dataDir });
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(answer).toMatchObject({ status: 'done', selected: 1, erased: 1, kafka_copies_expire_by: null });
    const requested = (await t.allEvents()).find((event) => event.type === 'ErasureRequested');
    expect(requested?.data).toMatchObject({ erasureId: answer.erasure_id, requestedBy: 'Ana Operator' });
    expect(requested?.metadata).toMatchObject({ actor: { kind: 'bootstrap', display: 'Ana Operator' } });
    const line = await cli(['erase', '--resume', answer.erasure_id as string], { DATA_DIR: t.dataDir });
    expect(line.stdout).toBe(`${answer.erasure_id as string} done: 1 erased of 1 selected\n`);
    await eventually(
      async () => (await t.admin('GET', `/admin/erasures/${answer.erasure_id as string}`)).status === 200,
      5_000,
      'readable',
    );
  });
});
