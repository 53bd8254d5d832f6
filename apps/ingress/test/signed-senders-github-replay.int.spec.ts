/**
 * Signed senders: a GitHub body sent again. GitHub does not sign X-GitHub-Delivery, so one captured
 * body and signature sent again under new delivery ids replays (its signature is the key), for the
 * idempotency retention and never less than the signature tolerance; after that it is a new
 * delivery. Over real HTTP, signed by GitHub's own library (@octokit/webhooks-methods).
 */
import { randomUUID } from 'node:crypto';
import { eventually } from '@wts/testing';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { HttpResult, Json } from '../../../test/support/ingress-http.client';
import { GITHUB_SECRET, enableSigned, githubHeaders, signedPoster, type SignedHook } from '../../../test/support/signed-delivery.headers';

describe('signed senders: a GitHub body sent again under new X-GitHub-Delivery ids', () => {
  const t = useIngressTestApp();
  const post = signedPoster(t);
  let github: SignedHook;

  beforeAll(async () => {
    await t.startDispatcher();
    github = await enableSigned(t, { scheme: 'github', secret: GITHUB_SECRET });
  });

  it('GitHub: one signed body sent again under new X-GitHub-Delivery ids replays (its signature is the key): one delivery, one run', async () => {
    const marker = randomUUID();
    const body = JSON.stringify({ action: 'opened', issue: { node_id: marker } });
    // A capture: the body and its signature as GitHub sent them, and a new X-GitHub-Delivery (unsigned) each time.
    const signed = await githubHeaders(github.secret, body);
    const deliveries = [randomUUID(), randomUUID(), randomUUID()];
    const answers: HttpResult[] = [];
    for (const delivery of deliveries) answers.push(await post(github.webhookId, { ...signed, 'x-github-delivery': delivery }, body));
    expect(answers.map((answer) => [answer.status, answer.headers.get('idempotent-replayed')])).toEqual([
      [202, null],
      [202, 'true'],
      [202, 'true'],
    ]);
    const first = answers[0]!.json as Json;
    expect(answers.map((answer) => answer.json)).toEqual([first, first, first]);
    await t.waitForRun(first.run_id);
    // The payload is kept apart from the event: the deliveries whose stored payload carries the marker.
    const accepted = await t.acceptedDeliveries(github.routineId);
    const payloads = await t.store.payloads().get(accepted.map((event) => (event.data as Json).deliveryId as string));
    const carrying = accepted.filter((event) => {
      const stored = payloads.get((event.data as Json).deliveryId as string);
      return stored?.state === 'kept' && stored.text.includes(marker);
    });
    expect(carrying.map((event) => (event.data as Json).deliveryId)).toEqual([first.delivery_id]);
    // The first acceptance's X-GitHub-Delivery stays recorded with the delivery, for operators.
    expect((carrying[0]!.data as Json).idempotencyKey).toBe(deliveries[0]);
    const runs = (await t.createdRuns(github.routineId)).filter((event) => (event.data as Json).deliveryId === first.delivery_id);
    expect(runs).toHaveLength(1);

    const other = body.replace(marker, randomUUID());
    const fresh = await post(github.webhookId, await githubHeaders(github.secret, other), other);
    expect(fresh.status).toBe(202);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect((fresh.json as Json).delivery_id).not.toBe(first.delivery_id);
  });
});

describe('signed senders: how long a GitHub capture replays', () => {
  // The start refuses a retention shorter than the tolerance, so the window is the retention.
  const RETENTION_SECONDS = 2;
  const TOLERANCE_SECONDS = 2;
  const t = useIngressTestApp({
    IDEMPOTENCY_RETENTION_SECONDS: String(RETENTION_SECONDS),
    WEBHOOK_SIGNATURE_TOLERANCE_SECONDS: String(TOLERANCE_SECONDS),
  });

  it('for the idempotency retention (never less than the signature tolerance); after that it is a new delivery (the limit that remains)', async () => {
    const hook = await enableSigned(t, { scheme: 'github', secret: GITHUB_SECRET });
    const body = JSON.stringify({ action: 'opened', issue: { node_id: randomUUID() } });
    const signed = await githubHeaders(GITHUB_SECRET, body);
    const capture = (): Promise<HttpResult> =>
      t.http('POST', t.webhookPath(hook.webhookId), { headers: { ...signed, 'x-github-delivery': randomUUID() }, body });
    const sentFirst = Date.now();
    const first = await capture();
    const firstAnsweredAt = Date.now();
    expect(first.status).toBe(202);

    // Captures sent until one is not a replay; each replay's time after the first answer is a lower bound of its age.
    const replays: { readonly sentAfterMs: number; readonly json: unknown }[] = [];
    const later = await eventually(
      async () => {
        const sentAt = Date.now();
        const answer = await capture();
        if (answer.headers.get('idempotent-replayed') === null) return answer;
        replays.push({ sentAfterMs: sentAt - firstAnsweredAt, json: answer.json });
        return undefined;
      },
      30_000,
      'a capture after the window to be a new delivery',
      200,
    );
    // Never a new delivery inside the window, and replays all through it.
    expect(Date.now() - sentFirst).toBeGreaterThanOrEqual(Math.max(RETENTION_SECONDS, TOLERANCE_SECONDS) * 1000);
    expect(Math.max(...replays.map((replay) => replay.sentAfterMs))).toBeGreaterThanOrEqual(RETENTION_SECONDS * 1000 - 500);
    expect(replays.map((replay) => replay.json)).toEqual(replays.map(() => first.json));
    // After the window: what GitHub leaves open, a new delivery (and run). Documented in docs/signed-senders.md.
    expect(later.status).toBe(202);
    expect((later.json as Json).delivery_id).not.toBe((first.json as Json).delivery_id);
    expect(await t.acceptedDeliveries(hook.routineId)).toHaveLength(2);
  });
});
