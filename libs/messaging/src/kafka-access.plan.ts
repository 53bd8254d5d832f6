/**
 * Who may do what on the brokers (Kafka ACLs), derived from the contract so that the grants follow
 * the topics and groups the code uses. Free of any client library: `kafka-access.admin.ts` applies
 * it, the CLI prints it (`kafka-acls`), docs/kafka.md explains it.
 *
 * - The ingress relay alone writes `webhooks.events.v1`; the dispatcher relay alone writes
 *   `routines.runs.v1`. Each may create and align the topics it uses (ensureTopics at start).
 * - The ingress may describe `routines.runs.v1` and its settings: it reads the topic's retention.
 * - The dispatcher reads `webhooks.events.v1` in its group and parks on the dead-letter topic.
 * - An internal consumer only reads `routines.runs.v1`, in its own group.
 * - A replay principal (an operator's `replay --to kafka`), if named, writes both event topics:
 *   what it sends is copied from the store, and the dispatcher checks every message against it.
 */
import { ConsumerGroups, Relays, kafkaTopicNames, relayTopics, type KafkaTopicNames, type RelayDefinition } from './kafka-topics.contract';

export type AclOperation = 'READ' | 'WRITE' | 'CREATE' | 'DESCRIBE' | 'DESCRIBE_CONFIGS' | 'ALTER_CONFIGS';

export interface AclResource {
  readonly type: 'topic' | 'group';
  readonly name: string;
  /** prefixed: every name that starts with `name` (an internal consumer's group prefix). */
  readonly pattern: 'literal' | 'prefixed';
}

/** One ALLOW binding per operation, from any host. */
export interface AclGrant {
  readonly principal: string;
  readonly resource: AclResource;
  readonly operations: readonly AclOperation[];
}

export interface RunsReader {
  /** e.g. `User:analytics` */
  readonly principal: string;
  /** Its consumer group; ending in `*`, every group with that prefix. */
  readonly group: string;
}

export interface KafkaPrincipals {
  /** e.g. `User:ingress` */
  readonly ingress: string;
  /** e.g. `User:dispatcher` */
  readonly dispatcher: string;
  readonly readers?: readonly RunsReader[];
  readonly replay?: string;
}

const PRINCIPAL = /^[A-Za-z][A-Za-z0-9]*:[^\s,;*]+$/;
const GROUP = /^[A-Za-z0-9._-]+\*?$/;

/** Why a principal or group name cannot be granted; undefined when it can. */
export function principalProblem(label: string, principal: string): string | undefined {
  return PRINCIPAL.test(principal) ? undefined : `${label} must be a principal like User:ingress (got ${JSON.stringify(principal)})`;
}

export function groupProblem(label: string, group: string): string | undefined {
  return GROUP.test(group)
    ? undefined
    : `${label} must be a consumer group name, optionally ending in * for a prefix (got ${JSON.stringify(group)})`;
}

/** A topic the principal creates at start if missing and aligns (max.message.bytes, retention.ms). */
const OWN_TOPIC: readonly AclOperation[] = ['DESCRIBE', 'CREATE', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS'];

const topic = (name: string): AclResource => ({ type: 'topic', name, pattern: 'literal' });
const group = (name: string): AclResource =>
  name.endsWith('*') ? { type: 'group', name: name.slice(0, -1), pattern: 'prefixed' } : { type: 'group', name, pattern: 'literal' };

function relayGrants(principal: string, relay: RelayDefinition, topics: KafkaTopicNames): AclGrant[] {
  return [
    { principal, resource: topic(topics[relay.topic]), operations: ['WRITE', ...OWN_TOPIC] },
    // The leadership: a consumer group on a topic nobody writes (relay-leadership.elector.ts).
    ...relayTopics(relay)
      .filter((role) => role !== relay.topic)
      .map((role): AclGrant => ({ principal, resource: topic(topics[role]), operations: ['READ', ...OWN_TOPIC] })),
    { principal, resource: group(ConsumerGroups.relayLeadership(relay.name)), operations: ['READ', 'DESCRIBE'] },
  ];
}

/** The dispatcher's consumer (DISPATCH_CONSUMER_TOPICS): it reads the events topic and parks on the dead-letter topic. */
function dispatcherConsumerGrants(principal: string, topics: KafkaTopicNames): AclGrant[] {
  return [
    { principal, resource: topic(topics.webhookEvents), operations: ['READ', ...OWN_TOPIC] },
    { principal, resource: topic(topics.webhookEventsDeadLetter), operations: ['WRITE', ...OWN_TOPIC] },
    { principal, resource: group(ConsumerGroups.runDispatcher), operations: ['READ', 'DESCRIBE'] },
  ];
}

/** Every grant the deployment needs, in a stable order (the CLI prints it, the admin applies it). */
export function kafkaAccessPlan(principals: KafkaPrincipals, topics: KafkaTopicNames = kafkaTopicNames()): AclGrant[] {
  return [
    ...relayGrants(principals.ingress, Relays.ingressWebhooks, topics),
    // The ingress reads the runs topic's retention at start (a webhook retention below it is refused).
    { principal: principals.ingress, resource: topic(topics.routineRuns), operations: ['DESCRIBE', 'DESCRIBE_CONFIGS'] },
    ...relayGrants(principals.dispatcher, Relays.dispatcherRuns, topics),
    ...dispatcherConsumerGrants(principals.dispatcher, topics),
    ...(principals.readers ?? []).flatMap((reader): AclGrant[] => [
      { principal: reader.principal, resource: topic(topics.routineRuns), operations: ['READ', 'DESCRIBE'] },
      { principal: reader.principal, resource: group(reader.group), operations: ['READ', 'DESCRIBE'] },
    ]),
    ...replayGrants(principals.replay, topics),
  ];
}

function replayGrants(principal: string | undefined, topics: KafkaTopicNames): AclGrant[] {
  if (principal === undefined) return [];
  return [Relays.ingressWebhooks.topic, Relays.dispatcherRuns.topic].map((role) => ({
    principal,
    resource: topic(topics[role]),
    operations: ['WRITE', ...OWN_TOPIC],
  }));
}

/** One line per grant, e.g. `ALLOW User:ingress WRITE,DESCRIBE,… on topic webhooks.events.v1`. */
export function formatGrant(grant: AclGrant): string {
  const { resource } = grant;
  return `ALLOW ${grant.principal} ${grant.operations.join(',')} on ${resource.type} ${resource.name}${resource.pattern === 'prefixed' ? '* (prefix)' : ''}`;
}
