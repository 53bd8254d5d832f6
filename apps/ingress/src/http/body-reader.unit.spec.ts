import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { readLimitedBody } from './body-reader';

/** A request as node:http gives it: a stream of the body's bytes with headers (no socket). */
function request(headers: Record<string, string>, chunks: readonly (string | Buffer)[], end = true): IncomingMessage {
  const stream = new PassThrough();
  Object.assign(stream, { headers });
  // A socket error with nobody listening would crash the process; the reader's own listener decides.
  stream.on('error', () => undefined);
  setImmediate(() => {
    for (const chunk of chunks) stream.write(chunk);
    if (end) stream.end();
  });
  return stream as unknown as IncomingMessage;
}

const LIMIT = 16;

/**
 * The limit is on bytes, counted while streaming: a chunked body (no Content-Length) is refused as
 * soon as its bytes pass the limit, never truncated; a declared Content-Length over the limit is
 * refused before a byte is read. Fast and without a socket, so a mutant of the reader is caught here.
 */
describe('readLimitedBody', () => {
  it('streaming (no Content-Length): exactly the limit is read whole, one byte more is too large', async () => {
    await expect(readLimitedBody(request({}, ['a'.repeat(10), 'b'.repeat(6)]), LIMIT)).resolves.toEqual({ kind: 'read', bytes: Buffer.from('a'.repeat(10) + 'b'.repeat(6)) });
    await expect(readLimitedBody(request({}, ['a'.repeat(10), 'b'.repeat(7)]), LIMIT)).resolves.toEqual({ kind: 'too_large' });
  });

  it('streaming counts bytes, not characters: 8 two-byte characters fit 16 bytes, 9 do not', async () => {
    const read = await readLimitedBody(request({}, ['é'.repeat(4), 'é'.repeat(4)]), LIMIT);
    expect(read).toEqual({ kind: 'read', bytes: Buffer.from('é'.repeat(8), 'utf8') });
    await expect(readLimitedBody(request({}, ['é'.repeat(4), 'é'.repeat(5)]), LIMIT)).resolves.toEqual({ kind: 'too_large' });
  });

  it('an endless stream is refused as soon as it passes the limit, without waiting for its end', async () => {
    await expect(readLimitedBody(request({}, ['x'.repeat(LIMIT + 1)], false), LIMIT)).resolves.toEqual({ kind: 'too_large' });
  });

  it('a declared Content-Length over the limit is refused before the body is read (none is ever sent here)', async () => {
    // Settled before the stream could even deliver a byte: a reader that waits for the body fails here at once.
    const stillReading = new Promise((resolve) => setImmediate(() => resolve('still waiting for the body')));
    await expect(Promise.race([readLimitedBody(request({ 'content-length': String(LIMIT + 1) }, [], false), LIMIT), stillReading])).resolves.toEqual({ kind: 'too_large' });
  });

  it('a declared Content-Length of exactly the limit is read', async () => {
    const body = 'y'.repeat(LIMIT);
    await expect(readLimitedBody(request({ 'content-length': String(LIMIT) }, [body]), LIMIT)).resolves.toEqual({ kind: 'read', bytes: Buffer.from(body) });
  });

  it('an empty body is read as zero bytes', async () => {
    await expect(readLimitedBody(request({}, []), LIMIT)).resolves.toEqual({ kind: 'read', bytes: Buffer.alloc(0) });
  });

  it('a stream error or an abort rejects', async () => {
    const failing = request({}, [], false);
    setImmediate(() => failing.emit('error', new Error('socket hang up')));
    await expect(readLimitedBody(failing, LIMIT)).rejects.toThrow('socket hang up');
    const aborted = request({}, [], false);
    setImmediate(() => aborted.emit('aborted'));
    await expect(readLimitedBody(aborted, LIMIT)).rejects.toThrow(/aborted/);
  });
});
