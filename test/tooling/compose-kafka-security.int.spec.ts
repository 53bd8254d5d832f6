/**
 * docker-compose.yml's Kafka security, checked without an engine (none on this machine): the
 * services authenticate as themselves over TLS, nothing unauthenticated is reachable from the network, the
 * ACLs come from the service's own plan for exactly those principals, and every principal is a
 * user that docker/kafka/create-users.sh creates. (create-users.sh itself was run against the test
 * broker's ConfigCommand; the SCRAM path is what the Kafka-shape suites run.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { cli } from '../../apps/cli/test/cli-harness';

interface ComposeService {
  readonly image?: string;
  readonly command?: readonly string[];
  readonly environment?: Record<string, string>;
  readonly depends_on?: Record<string, { condition: string }>;
  readonly network_mode?: string;
  readonly volumes?: readonly string[];
  readonly ports?: readonly string[];
}

const ROOT = join(__dirname, '..', '..');
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const services = compose.services;
const kafka = services.kafka;
const env = (service: ComposeService | undefined): Record<string, string> => service?.environment ?? {};
const users =
  /for user in ([^;]+); do/
    .exec(readFileSync(join(ROOT, 'docker', 'kafka', 'create-users.sh'), 'utf8'))?.[1]
    ?.trim()
    .split(/\s+/) ?? [];

describe('docker-compose.yml: Kafka with SASL/SCRAM and ACLs', () => {
  it("every listener without authentication is bound to the broker's loopback; the others use SASL", () => {
    const protocols = new Map(
      env(kafka)
        .KAFKA_LISTENER_SECURITY_PROTOCOL_MAP.split(',')
        .map((entry) => entry.split(':') as [string, string]),
    );
    const listeners = env(kafka)
      .KAFKA_LISTENERS.split(',')
      .map((listener) => /^(\w+):\/\/([^:]*):(\d+)$/.exec(listener)?.slice(1) ?? []);
    expect(listeners.length).toBeGreaterThan(2);
    for (const [name = '', host = ''] of listeners) {
      if (protocols.get(name) === 'PLAINTEXT') expect([name, host]).toEqual([name, '127.0.0.1']);
      else expect([name, protocols.get(name)]).toEqual([name, expect.stringMatching(/^SASL_(SSL|PLAINTEXT)$/)]);
    }
    // The services' listener is TLS with the broker's own key pair; the one without TLS is published on the host's loopback only.
    expect(protocols.get('SASL')).toBe('SASL_SSL');
    expect(env(kafka).KAFKA_SSL_KEYSTORE_LOCATION).toBe('/etc/kafka/wts-certs/broker.p12');
    expect(kafka?.volumes).toContain('kafka-certs:/etc/kafka/wts-certs:ro');
    expect(kafka?.depends_on).toMatchObject({ 'kafka-certs': { condition: 'service_completed_successfully' } });
    expect(services['kafka-certs']?.volumes).toEqual([
      './scripts/kafka/make-certs.sh:/etc/kafka/wts/make-certs.sh:ro',
      'kafka-certs:/certs',
    ]);
    expect(protocols.get('HOST')).toBe('SASL_PLAINTEXT');
    expect(kafka?.ports).toEqual(['127.0.0.1:29092:29092']);
    expect(env(kafka).KAFKA_SASL_ENABLED_MECHANISMS).toBe('SCRAM-SHA-512');
    expect(env(kafka).KAFKA_AUTHORIZER_CLASS_NAME).toBe('org.apache.kafka.metadata.authorizer.StandardAuthorizer');
    expect(env(kafka).KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND).toBe('false');
    expect(env(kafka).KAFKA_OPTS).toContain('/etc/kafka/wts/broker_jaas.conf');
    expect(kafka?.volumes).toContain('./docker/kafka:/etc/kafka/wts:ro');
  });

  it.each([
    ['ingress-1', 'ingress'],
    ['ingress-2', 'ingress'],
    ['run-dispatcher-1', 'dispatcher'],
    ['run-dispatcher-2', 'dispatcher'],
  ])('%s authenticates as %s (SCRAM-SHA-512, its own password) once users and ACLs exist', (name, user) => {
    const service = services[name];
    expect(env(service)).toMatchObject({
      KAFKA_BROKERS: 'kafka:9092',
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: user,
      KAFKA_SSL_CA_FILE: '/etc/wts/kafka-certs/ca.pem',
    });
    expect(service?.volumes).toContain('kafka-certs:/etc/wts/kafka-certs:ro');
    expect(env(service).KAFKA_SASL_PASSWORD).toMatch(new RegExp(`^\\$\\{KAFKA_${user.toUpperCase()}_PASSWORD:-`));
    expect(service?.depends_on).toMatchObject({
      'kafka-users': { condition: 'service_completed_successfully' },
      'kafka-acls': { condition: 'service_completed_successfully' },
    });
    expect(users).toContain(user);
  });

  it("the ACLs are the service's own plan for those principals, applied through the broker's loopback, and every principal exists", async () => {
    const acls = services['kafka-acls'];
    expect(acls?.network_mode).toBe('service:kafka');
    expect(env(acls).KAFKA_BROKERS).toBe('127.0.0.1:9094');
    expect(services['kafka-users']?.network_mode).toBe('service:kafka');
    const args = (acls?.command ?? []).slice(2);
    expect(args).toContain('--apply');
    const printed = await cli([...args.filter((arg) => arg !== '--apply'), '--json'], {});
    expect(printed.code).toBe(0);
    const { grants } = JSON.parse(printed.stdout) as { grants: { principal: string; resource: { name: string }; operations: string[] }[] };
    const writers = (topic: string): string[] => [
      ...new Set(
        grants.filter((grant) => grant.resource.name === topic && grant.operations.includes('WRITE')).map((grant) => grant.principal),
      ),
    ];
    expect(writers('webhooks.events.v1')).toEqual(['User:ingress', 'User:operator']);
    expect(writers('routines.runs.v1')).toEqual(['User:dispatcher', 'User:operator']);
    for (const principal of new Set(grants.map((grant) => grant.principal))) expect(users).toContain(principal.replace(/^User:/, ''));
    for (const user of users) expect(env(services['kafka-users'])[`KAFKA_${user.toUpperCase().replace(/-/g, '_')}_PASSWORD`]).toBeDefined();
  });
});
