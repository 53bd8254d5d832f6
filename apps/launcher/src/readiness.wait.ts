import { sleep } from '@wts/runtime';

/**
 * Polls `url` (a service's /health/ready at the address that service itself reported) until it
 * answers 200, asking only while `isOurs()` — the process that reported it is alive — or until
 * `deadline` (then the caller's own timeout has the word).
 */
export async function waitUntilReady(url: URL, deadline: number, isOurs: () => boolean): Promise<void> {
  while (Date.now() < deadline) {
    if (isOurs()) {
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        if (response.ok) return;
      } catch {
        // not answering yet
      }
    }
    await sleep(200);
  }
}
