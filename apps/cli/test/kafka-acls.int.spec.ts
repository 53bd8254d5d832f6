/**
 * `kafka-acls`: the deployment's grants printed from the contract, validated options, and --apply
 * on a SASL/SCRAM broker with the credentials of the environment (an administrator may, a service
 * may not).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKafkaScript } from '../../../test/support/kafka-broker';
import {
  aclBindings,
  securedBrokerEnv,
  serviceKafkaEnv,
  startSecuredKafkaBroker,
  type SecuredKafka,
} from '../../../test/support/kafka-secured-broker';
import { cli } from './cli-harness';

jest.setTimeout(60_000);

const BASE = ['kafka-acls', '--ingress', 'User:ingress', '--dispatcher', 'User:dispatcher'];

describe('kafka-acls', () => {
  it.each([
    [['kafka-acls', '--dispatcher', 'User:dispatcher'], '--ingress is required (a principal, e.g. User:ingress)'],
    [
      ['kafka-acls', '--ingress', 'ingress', '--dispatcher', 'User:dispatcher'],
      '--ingress must be a principal like User:ingress (got "ingress")',
    ],
    [[...BASE, '--reader', 'User:analytics'], '--reader must be <principal>=<consumer group>'],
    [[...BASE, '--reader', 'User:analytics=a b'], '--reader must be a consumer group name'],
    [[...BASE, '--topic-prefix', 'a/b'], '--topic-prefix may hold only'],
    [[...BASE, '--apply'], '--apply needs KAFKA_BROKERS'],
  ])('kafka-acls %j → exit 2: %s', async (args, message) => {
    const result = await cli(args, {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  it('prints one grant a line: each relay writes only its own topic, a reader only reads routines.runs.v1', async () => {
    const result = await cli([...BASE, '--reader', 'User:analytics=analytics-*'], {});
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toContain('ALLOW User:ingress WRITE,DESCRIBE,CREATE,DESCRIBE_CONFIGS,ALTER_CONFIGS on topic webhooks.events.v1');
    expect(lines).toContain('ALLOW User:dispatcher WRITE,DESCRIBE,CREATE,DESCRIBE_CONFIGS,ALTER_CONFIGS on topic routines.runs.v1');
    expect(lines).toContain('ALLOW User:dispatcher READ,DESCRIBE,CREATE,DESCRIBE_CONFIGS,ALTER_CONFIGS on topic webhooks.events.v1');
    expect(lines).toContain('ALLOW User:analytics READ,DESCRIBE on topic routines.runs.v1');
    expect(lines).toContain('ALLOW User:analytics READ,DESCRIBE on group analytics-* (prefix)');
    const writers = (topic: string): string[] =>
      lines.filter((line) => line.endsWith(` on topic ${topic}`) && / \S*WRITE/.test(line)).map((line) => line.split(' ')[1] ?? '');
    expect(writers('webhooks.events.v1')).toEqual(['User:ingress']);
    expect(writers('routines.runs.v1')).toEqual(['User:dispatcher']);
    expect(writers('webhooks.events.v1.dlq')).toEqual(['User:dispatcher']);
    expect(result.stderr).toContain('not applied');
  });

  describe('--apply on a SASL/SCRAM broker', () => {
    let env: NodeJS.ProcessEnv;
    let kafka: SecuredKafka;

    beforeAll(async () => {
      env = securedBrokerEnv(mkdtempSync(join(tmpdir(), 'wts-cli-acls-kafka-')));
      kafka = await startSecuredKafkaBroker(env);
    }, 180_000);

    afterAll(async () => {
      if (env) await runKafkaScript('clean', env);
    }, 60_000);

    const bindingsOf = async (principal: string): Promise<number> => (await aclBindings(kafka, principal)).length;

    it("refused with a service's credentials (exit 1, nothing created); created with an administrator's, once however often", async () => {
      const args = [...BASE, '--reader', 'User:analytics=analytics-*', '--json', '--apply'];
      const asService = { ...serviceKafkaEnv(kafka, 'ingress') } as Record<string, string>;
      const refused = await cli(args, asService);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/cannot create the ACLs on 127\.0\.0\.1:\d+: .*(authoriz|Authoriz)/);
      expect(refused.stderr).not.toContain(kafka.passwords.ingress);
      expect(await bindingsOf('User:analytics')).toBe(0);

      // The tooling's listener is the broker's super user: an administrator.
      for (let i = 0; i < 2; i++) {
        const applied = await cli(args, { KAFKA_BROKERS: kafka.adminBrokers });
        expect(applied.code).toBe(0);
        expect(JSON.parse(applied.stdout)).toMatchObject({ applied: true, bindings: expect.any(Number) });
      }
      expect(await bindingsOf('User:analytics')).toBe(4);
    });
  });
});
