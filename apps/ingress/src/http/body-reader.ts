import type { IncomingMessage } from 'node:http';
import type { BodyReadResult } from '@wts/application';
import { nestsDeeperThan } from '@wts/domain';
import { ADMIN_MAX_JSON_DEPTH } from './json-depth';

/**
 * Reads a request body without ever holding more than `maxBytes`: a declared Content-Length
 * over the limit is refused before reading, a stream that grows past it is refused while
 * reading. Nothing is truncated.
 */
export function readLimitedBody(request: IncomingMessage, maxBytes: number): Promise<BodyReadResult> {
  const declared = request.headers['content-length'];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
    return Promise.resolve({ kind: 'too_large' });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: BodyReadResult | Error): void => {
      if (settled) return;
      settled = true;
      request.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        request.resume();
        finish({ kind: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ kind: 'read', bytes: Buffer.concat(chunks, size) });
    const onError = (error: Error): void => finish(error);
    const onAborted = (): void => finish(new Error('request aborted by the client'));
    request.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onAborted);
  });
}

/** Reads and parses an admin JSON body (small, trusted-ish operators, still bounded). */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const result = await readLimitedBody(request, maxBytes);
  if (result.kind === 'too_large') throw new AdminBodyError(413, `the body exceeds ${maxBytes} bytes`);
  if (result.bytes.length === 0) return undefined;
  const text = result.bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    throw new AdminBodyError(400, 'the body is not valid JSON');
  }
  if (nestsDeeperThan(text, ADMIN_MAX_JSON_DEPTH)) {
    throw new AdminBodyError(400, `the body nests arrays and objects more than ${ADMIN_MAX_JSON_DEPTH} levels deep`);
  }
  return parsed;
}

export class AdminBodyError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}
