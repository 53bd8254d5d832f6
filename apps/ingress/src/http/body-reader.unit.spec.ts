import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { AdminBodyError, readJsonBody, readLimitedBody } from './body-reader';

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
    await expect(readLimitedBody(request({}, ['a'.repeat(10), 'b'.repeat(6)]), LIMIT)).resolves.toEqual({
      kind: 'read',
      bytes: Buffer.from('a'.repeat(10) + 'b'.repeat(6)),
    });
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
    await expect(
      Promise.race([readLimitedBody(request({ 'content-length': String(LIMIT + 1) }, [], false), LIMIT), stillReading]),
    ).resolves.toEqual({ kind: 'too_large' });
  });

  it('a declared Content-Length of exactly the limit is read', async () => {
    const body = 'y'.repeat(LIMIT);
    await expect(readLimitedBody(request({ 'content-length': String(LIMIT) }, [body]), LIMIT)).resolves.toEqual({
      kind: 'read',
      bytes: Buffer.from(body),
    });
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

describe('readJsonBody (admin requests)', () => {
  it('parses a JSON body, and reads an empty one as no body', async () => {
    await expect(readJsonBody(request({}, ['{"a":', '1}']), LIMIT)).resolves.toEqual({ a: 1 });
    await expect(readJsonBody(request({}, []), LIMIT)).resolves.toBeUndefined();
  });

  it('refuses a body over the limit with 413 and invalid JSON with 400', async () => {
    const tooLarge = readJsonBody(request({}, ['{"a":"' + 'x'.repeat(LIMIT) + '"}']), LIMIT);
    await expect(tooLarge).rejects.toBeInstanceOf(AdminBodyError);
    await expect(tooLarge).rejects.toMatchObject({ statusCode: 413, message: `the body exceeds ${LIMIT} bytes` });
    await expect(readJsonBody(request({}, ['{"a":']), LIMIT)).rejects.toMatchObject({
      statusCode: 400,
      message: 'the body is not valid JSON',
    });
  });
});
