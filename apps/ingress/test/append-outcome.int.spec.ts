import { EventStoreUnavailableError, InvalidAppendError, type EventStore } from '@wts/event-store';
import { useIngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { Json } from '../../../test/support/ingress-http.client';
import { expectProblem } from '../../../test/support/problem-details.assertions';

type Fault = 'none' | 'deadline_after_commit' | 'refused_as_too_big';

/**
 * What the caller is told when the append of a delivery fails:
 * - a deadline after the commit (EventStoreDB): 503 `store_outcome_unknown` — never "nothing was
 *   accepted" — and a retry with the same X-Service-Idempotency-Key replays the delivery;
 * - the store refusing the event as too big (InvalidAppendError): 413, never a 500.
 */
describe('append outcomes the store does not confirm', () => {
  let hook: WebhookFixture;
  let fault: Fault = 'none';

  /** The real store; appends to delivery streams fail as `fault` says (after committing, for a deadline). */
  const faulty = (store: EventStore): EventStore =>
    new Proxy(store, {
      get(target, property, receiver) {
        if (property !== 'append') return Reflect.get(target, property, receiver) as unknown;
        return async (...args: Parameters<EventStore['append']>) => {
          const [streamId] = args;
          if (!streamId.startsWith('delivery-') || fault === 'none') return target.append(...args);
          if (fault === 'refused_as_too_big') throw new InvalidAppendError('append exceeds the maximum append size');
          await target.append(...args);
          throw new EventStoreUnavailableError('EventStoreDB append failed: deadline exceeded');
        };
      },
    });
  const t = useIngressTestApp({}, faulty);

  beforeAll(async () => {
    hook = await t.setupWebhook();
  });

  afterEach(() => {
    fault = 'none';
  });

  it('a deadline after the commit: 503 store_outcome_unknown saying a retry with the idempotency key is safe', async () => {
    fault = 'deadline_after_commit';
    const answer = await t.deliver(hook, { body: '{"data":"maybe"}', headers: { 'x-service-idempotency-key': 'unknown-outcome-1' } });
    const problem = expectProblem(answer, 503, 'store_outcome_unknown') as Json;
    expect(problem.detail).toMatch(/may or may not have been accepted/);
    expect(problem.detail).toMatch(/X-Service-Idempotency-Key/);
    expect(problem.detail).not.toMatch(/nothing was accepted/);
    expect(answer.headers.get('retry-after')).toBe('5');

    // It was committed: the retry with the same key replays it, and creates nothing new.
    fault = 'none';
    const retry = await t.deliver(hook, { body: '{"data":"maybe"}', headers: { 'x-service-idempotency-key': 'unknown-outcome-1' } });
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const stored = await t.acceptedDeliveries(hook.routineId);
    expect(stored.map((event) => (event.data as { deliveryId: string }).deliveryId)).toContain((retry.json as Json).delivery_id);
  });

  it('without a key the answer is the same unknown outcome (never a 202, never "nothing was accepted")', async () => {
    fault = 'deadline_after_commit';
    expectProblem(await t.deliver(hook, { body: '{"data":"no key"}' }), 503, 'store_outcome_unknown');
  });

  it('the store refusing the event as too big: 413 payload_too_large, not a 500', async () => {
    fault = 'refused_as_too_big';
    expectProblem(await t.deliver(hook, { body: '{"data":"big"}' }), 413, 'payload_too_large');
    expectProblem(
      await t.deliver(hook, { body: '{"data":"big"}', headers: { 'x-service-idempotency-key': 'too-big-1' } }),
      413,
      'payload_too_large',
    );
  });
});
