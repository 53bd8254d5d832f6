/* global fetch, performance */
/**
 * hold-hol.mjs's traffic: one delivery with its retries, B's steady open-loop sender and A's
 * closed-loop burst senders, on 127.0.0.1 (the stack's baseUrl, checked by the caller).
 */
import { sleep } from './bench-kit.mjs';

/** One delivery, retried (a few times) only on a refused connection or a 503. Resolves with the 202's body. */
async function deliver(baseUrl, hook, key, body) {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const response = await fetch(`${baseUrl}${hook.path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hook.secret}`, 'content-type': 'application/json', 'x-service-idempotency-key': key },
        body,
      });
      const answer = await response.text();
      if (response.status === 202) return JSON.parse(answer);
      if (response.status !== 503) throw new Error(`${key}: unexpected ${response.status} ${answer.slice(0, 200)}`);
    } catch (error) {
      if (String(error?.message).includes('unexpected')) throw error;
    }
    await sleep(50);
  }
  throw new Error(`${key} never got a 202`);
}

/** B's steady open-loop sender: one delivery every 1/rate s, tagged with the phase it was sent in, until stopped. */
export function steadySender(baseUrl, hook, rate, phaseOf) {
  const sent = [];
  let stopped = false;
  const done = (async () => {
    const t0 = performance.now();
    for (let n = 0; !stopped; n++) {
      const due = t0 + (n * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      if (stopped) break;
      const phase = phaseOf();
      const key = `b-${n}`;
      sent.push(
        deliver(baseUrl, hook, key, JSON.stringify({ data: { n, phase } })).then(
          (body) => ({ phase, ...body }),
          (error) => ({ phase, error: String(error) }),
        ),
      );
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      return Promise.all(sent);
    },
  };
}

/** A's closed-loop senders (as fast as answers come) until stopped. Resolves with the 202 count. */
export function burstSender(baseUrl, hook, concurrency, tag) {
  let stopped = false;
  let next = 0;
  let accepted = 0;
  const errors = [];
  const senders = Array.from({ length: concurrency }, async () => {
    while (!stopped) {
      const n = next++;
      try {
        await deliver(baseUrl, hook, `${tag}-${n}`, JSON.stringify({ data: { n, tag } }));
        accepted++;
      } catch (error) {
        if (errors.length < 5) errors.push(String(error));
      }
    }
  });
  return {
    accepted: () => accepted,
    stop: async () => {
      stopped = true;
      await Promise.all(senders);
      return { accepted, errors };
    },
  };
}
