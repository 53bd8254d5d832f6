import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';

export interface RawResponse {
  readonly status: number;
  /** The status line's reason phrase. */
  readonly statusMessage?: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly body: Buffer;
}

/** What to send: the method, the path, exact headers, the body's chunks (none unless given) and how. */
export type RawRequest = [
  method: string,
  path: string,
  headers: OutgoingHttpHeaders,
  chunks?: readonly (string | Buffer)[],
  options?: RawRequestOptions,
];

export interface RawRequestOptions {
  /** false leaves the body unfinished (headers flushed, no end). */
  readonly end?: boolean;
  readonly answerWithinMs?: number;
}

/**
 * A request with node:http to 127.0.0.1:`port`: exact headers (no defaults added but
 * Host/Connection/framing), optional chunks written one by one, and `end: false` to leave the body
 * unfinished. Resolves with the response as soon as it is complete; `written` tells how many body
 * bytes went out.
 *
 * Bounded: a request whose body is left unfinished is one the server must answer from its headers
 * alone, so no answer within `answerWithinMs` (default 3 s for those, 15 s otherwise) rejects at
 * once with what went wrong — a fast, named failure instead of a test timeout. The socket is
 * destroyed whatever happens (answer, error, timeout); until then it sits in `openRequests`, so
 * whoever closes the server can destroy any still open and a regression never leaves a handle that
 * hangs the run.
 */
export function rawHttpRequest(
  port: number,
  openRequests: Set<ClientRequest>,
  ...[method, path, headers, chunks = [], options = {}]: RawRequest
): Promise<RawResponse & { written: number }> {
  const unfinished = options.end === false;
  const answerWithinMs = options.answerWithinMs ?? (unfinished ? 3000 : 15_000);
  return new Promise((resolve, reject) => {
    let written = 0;
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const body: Buffer[] = [];
      res.on('data', (chunk: Buffer) => body.push(chunk));
      res.on('end', () => {
        settle();
        resolve({
          status: res.statusCode ?? 0,
          statusMessage: res.statusMessage,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(body),
          written,
        });
      });
      res.on('error', (error) => {
        settle();
        reject(error);
      });
    });
    openRequests.add(req);
    const timer = setTimeout(() => {
      settle();
      reject(
        new Error(
          `${method} ${path}: no complete answer within ${answerWithinMs} ms` +
            (unfinished
              ? ' although the body was left unfinished (the server waits for a body it should have refused from the headers)'
              : ''),
        ),
      );
    }, answerWithinMs);
    function settle(): void {
      clearTimeout(timer);
      req.destroy();
    }
    req.on('close', () => openRequests.delete(req));
    // The server may close the connection while we still write (413): not a test failure.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') {
        settle();
        reject(error);
      }
    });
    for (const chunk of chunks) {
      written += Buffer.byteLength(chunk);
      req.write(chunk);
    }
    if (!unfinished) req.end();
    else req.flushHeaders();
  });
}
