import { Writable } from 'node:stream';
import pino from 'pino';
import { REDACTED_PATHS } from './service-logger.factory';

describe('REDACTED_PATHS', () => {
  it('censors credentials wherever a log call carries them, as a last line of defence', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString('utf8')), done()) });
    const logger = pino({ redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
    logger.info(
      {
        req: { headers: { authorization: 'Bearer whsec_leak', cookie: 'c=leak' } },
        secret: 'whsec_leak2',
        nested: { secret: 'whsec_leak3', adminToken: 'tok-leak' },
      },
      'x',
    );
    const [line] = lines;
    expect(line).not.toMatch(/leak/);
    expect(JSON.parse(line)).toMatchObject({
      req: { headers: { authorization: '[redacted]', cookie: '[redacted]' } },
      secret: '[redacted]',
      nested: { secret: '[redacted]', adminToken: '[redacted]' },
    });
  });
});
