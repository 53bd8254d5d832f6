/**
 * `show` prints a stored delivery or run as pretty JSON; `tail` prints one safe line per event
 * (no secret, payloads marked untrusted, truncated, terminal-safe) and stops after --limit.
 */
import { runIdForDelivery } from '@wts/domain';
import { eventually } from '@wts/testing';
import { cli, type CliResult } from './cli-harness';
import { positionOf, useSeededStoreWithRuns } from './cli-fixtures';

jest.setTimeout(60_000);

describe('show and tail', () => {
  const seeded = useSeededStoreWithRuns();

  describe('show', () => {
    it('show run prints the run stream as pretty JSON', async () => {
      const [run] = await seeded.app.createdRuns();
      const runId = (run.data as { runId: string }).runId;
      const result = await cli(['show', 'run', runId], seeded.env);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('\n  "stream": "run-');
      const shown = JSON.parse(result.stdout);
      expect(shown).toEqual({
        stream: `run-${runId}`,
        events: [
          {
            position: positionOf(run),
            revision: '0',
            event_id: run.id,
            type: 'RunCreated',
            created_at: run.createdAt.toISOString(),
            metadata: run.metadata,
            data: run.data,
          },
        ],
        // Kept apart from the events: read from the store, the run's message framed from it.
        payload: {
          state: 'kept',
          format: 'json',
          text: expect.stringContaining('12345678901234567890') as unknown,
          initial_message: expect.stringContaining('<<<UNTRUSTED_PAYLOAD_BEGIN delivery=') as unknown,
        },
      });
    });

    it('show delivery prints the DeliveryAccepted event', async () => {
      const deliveryId = seeded.deliveryIds[0];
      const result = await cli(['show', 'delivery', deliveryId], seeded.env);
      expect(result.code).toBe(0);
      const shown = JSON.parse(result.stdout);
      expect(shown.stream).toBe(`delivery-${deliveryId}`);
      expect(shown.events).toHaveLength(1);
      expect(shown.events[0]).toMatchObject({ type: 'DeliveryAccepted', data: { deliveryId, runId: runIdForDelivery(deliveryId) } });
      expect(JSON.stringify(shown.events[0])).not.toContain('12345678901234567890');
      expect(shown.payload).toEqual({ state: 'kept', format: 'json', text: expect.stringContaining('12345678901234567890') as unknown });
    });

    it('an unknown id is exit 1, a malformed one exit 2', async () => {
      const missing = await cli(['show', 'run', 'run_AAAAAAAAAAAAAAAAAAAAAA'], seeded.env);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('no run run_AAAAAAAAAAAAAAAAAAAAAA in the event store');
      const malformed = await cli(['show', 'delivery', 'run_AAAAAAAAAAAAAAAAAAAAAA'], seeded.env);
      expect(malformed.code).toBe(2);
      expect(malformed.stderr).toContain('not a delivery id');
      expect((await cli(['show'], seeded.env)).code).toBe(2);
      expect((await cli(['show', 'delivery'], seeded.env)).code).toBe(2);
    });
  });

  describe('tail', () => {
    it('--from-start --limit N prints the first N events, one line each', async () => {
      const all = await seeded.app.allEvents();
      const result = await cli(['tail', '--from-start', '--limit', '3'], seeded.env);
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(3);
      lines.forEach((line, i) =>
        expect(line.startsWith(`${positionOf(all[i])} ${all[i].streamId} ${all[i].type} ${all[i].id} {`)).toBe(true),
      );
      expect(lines[0]).toMatch(/^1\/1 account-catalog AccountConnected [0-9a-f-]{36} \{"accountId":"acc_/);
    });

    it('never prints a secret, shortens digests, marks payloads untrusted', async () => {
      const all = await seeded.app.allEvents();
      const result = await cli(['tail', '--from-start', '--limit', String(all.length)], seeded.env);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(all.length);
      for (const hook of seeded.hooks) expect(result.stdout).not.toContain(hook.secret);
      for (const event of all.filter((e) => e.type === 'WebhookEnabled')) {
        const digest = (event.data as { secretDigest: string }).secretDigest;
        expect(result.stdout).not.toContain(digest);
        expect(result.stdout).toContain(`"secretDigest":"${digest.slice(0, 12)}…"`);
      }
      const deliveryLines = lines.filter((line) => line.includes(' DeliveryAccepted '));
      expect(deliveryLines).toHaveLength(seeded.deliveryIds.length);
      for (const line of deliveryLines) expect(line).toMatch(/ untrusted payload \((json|text), \d+ chars\): /);
      // JSON payloads as received: every digit kept.
      expect(
        deliveryLines.filter((line) => line.endsWith('untrusted payload (json, 45 chars): {"alert":"disk 0","big":12345678901234567890}')),
      ).toHaveLength(1);
      const runLines = lines.filter((line) => line.includes(' RunCreated '));
      for (const line of runLines) {
        // The payload is stored once (in the delivery's line); the run's framed message is summarised.
        expect(line).not.toContain('untrusted payload');
        expect(line).not.toContain('UNTRUSTED_PAYLOAD_BEGIN');
      }
      // Text payloads keep their newline escaped: one event, one line.
      expect(
        deliveryLines.filter((line) => line.includes('untrusted payload (text, 24 chars): "plain text 0\\nsecond line"')),
      ).toHaveLength(1);
    });

    it('follows new events from the head, filtered by category, and stops at --limit', async () => {
      const head = (await seeded.app.allEvents()).length;
      const tail = cli(['tail', '--category', 'delivery', '--limit', '2'], seeded.env);
      let result: CliResult | undefined;
      void tail.then((r) => (result = r));
      const hostile = `\u001b[2J\u001b]0;owned\u0007 evil\nFAKE 1/1 line \u202e${'x'.repeat(5000)}`;
      // Delivers until the tail has printed its two lines and exited.
      const statuses: number[] = [];
      await eventually(
        async () => {
          if (result !== undefined) return true;
          statuses.push((await seeded.app.deliver(seeded.hooks[1], { contentType: 'text/plain', body: hostile })).status);
          return false;
        },
        10_000,
        'the tail to stop at --limit 2',
        50,
      );
      expect(statuses.filter((status) => status !== 202)).toEqual([]);
      const done = await tail;
      expect(done.code).toBe(0);
      const lines = done.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      for (const line of lines) {
        expect(Number(line.split('/')[0])).toBeGreaterThan(head);
        expect(line).toMatch(/^\d+\/\d+ delivery-dlv_\S+ DeliveryAccepted /);
        expect(
          [...line].filter(
            (char) => char.charCodeAt(0) < 0x20 || (char.charCodeAt(0) >= 0x7f && char.charCodeAt(0) <= 0x9f) || char === '\u202e',
          ),
        ).toEqual([]);
        expect(line).toContain('untrusted payload (text, 5035 chars): "\\u001b[2J\\u001b]0;owned\\u0007 evil\\nFAKE 1/1 line \\u202e');
        expect(line.length).toBeLessThan(700);
        expect(line).toMatch(/…\(\+\d+\)$/);
      }
    });

    it('rejects bad options with exit 2', async () => {
      expect((await cli(['tail', '--limit', '0'], seeded.env)).stderr).toContain('--limit must be a positive integer');
      const unknown = await cli(['tail', '--category', 'everything'], seeded.env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('unknown --category "everything"');
    });
  });
});
