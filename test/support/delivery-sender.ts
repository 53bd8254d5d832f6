import { eventually } from '@wts/testing';

export interface AcceptedBody {
  readonly delivery_id: string;
  readonly run_id: string;
}

export interface PostUntilAccepted {
  /** The webhook URL to use on this attempt (spread retries over replicas if you like). */
  readonly urlFor: (attempt: number) => string;
  readonly secret: string;
  readonly idempotencyKey: string;
  readonly body: string;
  readonly maxAttempts: number;
  /** Called when a connection was refused or reset (the ingress was down). */
  readonly onRefused?: () => void;
}

/**
 * Posts one delivery until it is answered 202, as a sender with retries would: the
 * idempotency key makes every retry safe. 503 and connection failures are retried; any other
 * status fails the test.
 */
export async function postUntilAccepted(delivery: PostUntilAccepted): Promise<AcceptedBody> {
  for (let attempt = 0; attempt < delivery.maxAttempts; attempt++) {
    let answer: { status: number; text: string } | undefined;
    try {
      const response = await fetch(delivery.urlFor(attempt), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${delivery.secret}`,
          'content-type': 'application/json',
          'x-service-idempotency-key': delivery.idempotencyKey,
        },
        body: delivery.body,
      });
      answer = { status: response.status, text: await response.text() };
    } catch {
      // refused, or reset before the whole answer arrived: retry with the same key
      delivery.onRefused?.();
    }
    if (answer?.status === 202) return JSON.parse(answer.text) as AcceptedBody;
    if (answer && answer.status !== 503) throw new Error(`${delivery.idempotencyKey}: unexpected ${answer.status} ${answer.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${delivery.idempotencyKey} never got a 202`);
}

/**
 * A closed-loop stream of `count` deliveries: each sender takes the next index and delivers it,
 * then the next, until none is left. `completed` counts the deliveries done, for chaos moments.
 */
export class DeliveryStream {
  completed = 0;
  private next = 0;

  constructor(
    private readonly count: number,
    private readonly deliver: (index: number) => Promise<void>,
  ) {}

  /** Starts `concurrency` senders at once; resolves when every delivery is done. */
  send(concurrency: number): Promise<void> {
    const senders = Array.from({ length: concurrency }, async () => {
      while (this.next < this.count) {
        const i = this.next++;
        await this.deliver(i);
        this.completed++;
      }
    });
    return Promise.all(senders).then(() => undefined);
  }

  /** Waits (up to `timeoutMs`) until `fraction` of the deliveries are done. */
  reached(fraction: number, timeoutMs: number): Promise<boolean> {
    return eventually(async () => this.completed >= this.count * fraction, timeoutMs, `${fraction * 100}% sent`);
  }
}

/** `count` JSON deliveries to one webhook, `concurrency` senders in a closed loop, each with its own key (`<tag>-<i>`) and `fieldsFor(i)` beside its data: their 202 bodies. */
export async function sendAccepted(
  url: string,
  secret: string,
  count: number,
  tag: string,
  concurrency = 8,
  fieldsFor: (i: number) => Record<string, unknown> = () => ({}),
): Promise<AcceptedBody[]> {
  const accepted: AcceptedBody[] = [];
  const stream = new DeliveryStream(count, async (i) => {
    accepted.push(
      await postUntilAccepted({
        urlFor: () => url,
        secret,
        idempotencyKey: `${tag}-${i}`,
        body: JSON.stringify({ ...fieldsFor(i), data: { i, tag } }),
        maxAttempts: 50,
      }),
    );
  });
  await stream.send(concurrency);
  return accepted;
}
