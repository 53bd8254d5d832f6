/* global setTimeout, clearTimeout, Buffer */
/**
 * One HTTP exchange over a raw TCP socket (node:net), so that framing can be as broken as a
 * hostile client makes it: the request is a list of byte chunks written with optional pauses.
 * With `halfClose` the write side is then closed (a client that gives up; Node's server aborts
 * what it has not answered yet). The exchange ends when `expectResponses` final (≥ 200) status
 * lines have arrived, when the server closes, or after `timeoutMs`. The answer is every status
 * line seen, and the outcome: "response", "closed" without one, "reset", or "timeout".
 */
import { connect } from 'node:net';

const STATUS_LINE = /HTTP\/1\.[01] (\d{3}) /g;

export function exchange(port, chunks, { timeoutMs = 15_000, halfClose = false, expectResponses = 1 } = {}) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const received = [];
    let size = 0;
    let settled = false;
    const statusesSoFar = () => [...Buffer.concat(received).toString('latin1').matchAll(STATUS_LINE)].map((match) => Number(match[1]));
    const finish = (outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const statuses = statusesSoFar();
      resolve({ outcome: statuses.some((status) => status >= 200) && outcome !== 'timeout' ? 'response' : outcome, statuses });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (chunk) => {
      // Only the heads matter; keep at most 64 KiB of the answer.
      if (size < 65_536) received.push(chunk);
      size += chunk.length;
      if (statusesSoFar().filter((status) => status >= 200).length >= expectResponses) finish('response');
    });
    socket.on('error', (error) => finish(error.code === 'ECONNRESET' || error.code === 'EPIPE' ? 'reset' : `error:${error.code}`));
    socket.on('close', () => finish('closed'));
    socket.once('connect', async () => {
      for (const chunk of chunks) {
        if (settled) return;
        if (chunk.delayMs) await new Promise((resolveDelay) => setTimeout(resolveDelay, chunk.delayMs));
        if (settled || socket.destroyed) return;
        socket.write(chunk.bytes);
      }
      if (halfClose && !socket.destroyed) socket.end();
    });
  });
}
