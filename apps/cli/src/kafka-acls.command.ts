import {
  aclEntries,
  applyKafkaAccess,
  createKafkaClient,
  formatGrant,
  groupProblem,
  kafkaAccessPlan,
  kafkaTopicNames,
  principalProblem,
  silentMessagingLogger,
  type AclGrant,
  type RunsReader,
} from '@wts/messaging';
import { Command } from 'nest-commander';
import { CommandOptions, flag, json, repeatable, value } from './command-options.decorator';
import { CliCommand } from './cli.command';
import { CliFailure, UsageError, describeError } from './cli.errors';
import { cliConfig } from './store.session';

interface RawKafkaAclOptions {
  readonly ingress?: string;
  readonly dispatcher?: string;
  readonly reader?: readonly string[];
  readonly replay?: string;
  readonly topicPrefix?: string;
  readonly apply?: boolean;
  readonly json?: boolean;
}

interface KafkaAclPlan {
  readonly grants: readonly AclGrant[];
  readonly apply: boolean;
  readonly json: boolean;
}

function parseKafkaAclOptions(raw: RawKafkaAclOptions): KafkaAclPlan {
  const problems: string[] = [];
  const principal = (flag: string, value: string | undefined, required: boolean): string | undefined => {
    if (value === undefined) {
      if (required) problems.push(`${flag} is required (a principal, e.g. User:${flag.slice(2)})`);
      return undefined;
    }
    const problem = principalProblem(flag, value);
    if (problem) problems.push(problem);
    return value;
  };
  const ingress = principal('--ingress', raw.ingress, true);
  const dispatcher = principal('--dispatcher', raw.dispatcher, true);
  const replay = principal('--replay', raw.replay, false);
  const readers: RunsReader[] = [];
  for (const value of raw.reader ?? []) {
    const at = value.lastIndexOf('=');
    if (at < 0) {
      problems.push(`--reader must be <principal>=<consumer group>, e.g. User:analytics=analytics-* (got ${JSON.stringify(value)})`);
      continue;
    }
    const reader = { principal: value.slice(0, at), group: value.slice(at + 1) };
    const problem = principalProblem('--reader', reader.principal) ?? groupProblem('--reader', reader.group);
    if (problem) problems.push(problem);
    readers.push(reader);
  }
  if (raw.topicPrefix !== undefined && !/^[A-Za-z0-9._-]*$/.test(raw.topicPrefix))
    problems.push('--topic-prefix may hold only letters, digits and . _ -');
  if (problems.length > 0 || !ingress || !dispatcher) throw new UsageError(problems);
  return {
    grants: kafkaAccessPlan({ ingress, dispatcher, readers, replay }, kafkaTopicNames(raw.topicPrefix ?? '')),
    apply: raw.apply === true,
    json: raw.json === true,
  };
}

/**
 * `kafka-acls`: the ACLs a deployment's brokers need (kafkaAccessPlan), printed one grant a line;
 * with --apply, created on the brokers of KAFKA_BROKERS / KAFKA_SASL_* (an administrator's
 * credentials: creating ACLs needs ALTER on the cluster). Creating an existing binding is a no-op,
 * so --apply can run at every deploy.
 */
@Command({
  name: 'kafka-acls',
  description:
    'print (or --apply) the Kafka ACLs of a deployment: each relay writes only its own topic, internal consumers only read routines.runs.v1',
})
@CommandOptions(
  value('--ingress <principal>', "the ingress relay's principal, e.g. User:ingress (required)"),
  value('--dispatcher <principal>', "the run-dispatcher's principal, e.g. User:dispatcher (required)"),
  repeatable(
    '--reader <principal=group>',
    'an internal consumer of routines.runs.v1 and its consumer group (a trailing * for a prefix), e.g. User:analytics=analytics-* (repeatable)',
  ),
  value('--replay <principal>', "an operator's principal for `replay --to kafka` (writes both event topics)"),
  value('--topic-prefix <prefix>', 'the topics behind a prefix (as replay --topic-prefix)'),
  flag('--apply', 'create the ACLs on the brokers (KAFKA_BROKERS, KAFKA_SASL_* of an administrator)'),
  json('one JSON object: the grants and how many bindings they make'),
)
export class KafkaAclsCommand extends CliCommand {
  async run(_params: string[], options: RawKafkaAclOptions): Promise<void> {
    const plan = parseKafkaAclOptions(options);
    if (plan.apply) await this.apply(plan.grants);
    if (plan.json) {
      this.context.stdout.write(
        `${JSON.stringify({ applied: plan.apply, bindings: aclEntries(plan.grants).length, grants: plan.grants })}\n`,
      );
      return;
    }
    for (const grant of plan.grants) this.context.stdout.write(`${formatGrant(grant)}\n`);
    this.context.stderr.write(
      plan.apply
        ? `kafka-acls: ${aclEntries(plan.grants).length} bindings on the brokers\n`
        : "kafka-acls: not applied (add --apply, with an administrator's KAFKA_SASL_* credentials)\n",
    );
  }

  private async apply(grants: readonly AclGrant[]): Promise<void> {
    const connection = cliConfig(this.context).kafka;
    if (!connection)
      throw new UsageError(["--apply needs KAFKA_BROKERS (and an administrator's KAFKA_SASL_* credentials) in the environment"]);
    const kafka = createKafkaClient({ connection, clientId: 'wts-cli-kafka-acls', logger: silentMessagingLogger });
    try {
      await applyKafkaAccess(kafka, grants);
    } catch (error) {
      throw new CliFailure(`cannot create the ACLs on ${connection.brokers.join(',')}: ${describeError(error)}`, { cause: error });
    }
  }
}
