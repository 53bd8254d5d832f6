/**
 * kafka.sh with KAFKA_SCRAM_USERS: a SASL/SCRAM listener next to PLAINTEXT. Users given when the
 * storage is formatted exist at once; a data dir formatted without them gets them on its next
 * start (through the PLAINTEXT listener), for both SCRAM mechanisms the services may configure.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKafkaClient, silentMessagingLogger } from '@wts/messaging';
import { runKafkaScript } from '../support/kafka-broker';

jest.setTimeout(120_000);

async function signIn(brokers: string, mechanism: 'scram-sha-256' | 'scram-sha-512', username: string, password: string): Promise<string> {
  const admin = createKafkaClient({
    connection: { brokers: [brokers], sasl: { mechanism, username, password } },
    clientId: 'scram-check',
    logger: silentMessagingLogger,
  }).admin({ retry: { retries: 0 } });
  try {
    await admin.connect();
    await admin.describeCluster();
    return 'signed in';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

describe('kafka.sh SCRAM users', () => {
  const env = { KAFKA_DATA_DIR: mkdtempSync(join(tmpdir(), 'wts-scram-users-')), KAFKA_OWNER_CLEANUP: '1' };
  afterAll(() => runKafkaScript('clean', env), 60_000);

  it('a data dir formatted without users gets them on the next start, for SCRAM-SHA-512 and -256', async () => {
    const plain = await runKafkaScript('start', env);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain('KAFKA_SASL_BROKERS');
    expect((await runKafkaScript('stop', env)).code).toBe(0);

    const secured = await runKafkaScript('start', { ...env, KAFKA_SCRAM_USERS: 'late:late-pw,other:other-pw' });
    expect(secured.code).toBe(0);
    const sasl = /^KAFKA_SASL_BROKERS=(\S+)$/m.exec(secured.stdout)?.[1] ?? '';
    expect(sasl).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(await signIn(sasl, 'scram-sha-512', 'late', 'late-pw')).toBe('signed in');
    expect(await signIn(sasl, 'scram-sha-256', 'other', 'other-pw')).toBe('signed in');
    expect(await signIn(sasl, 'scram-sha-512', 'late', 'other-pw')).toMatch(/SASL SCRAM SHA512 authentication failed/);
  });

  it('refuses a malformed user list before starting anything', async () => {
    const result = await runKafkaScript('start', {
      KAFKA_DATA_DIR: mkdtempSync(join(tmpdir(), 'wts-scram-bad-')),
      KAFKA_OWNER_CLEANUP: '1',
      KAFKA_SCRAM_USERS: 'nopassword',
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("KAFKA_SCRAM_USERS: 'nopassword:…' is not name:password");
  });
});
