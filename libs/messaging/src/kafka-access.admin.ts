import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type AclEntry, type Kafka } from 'kafkajs';
import type { AclGrant, AclOperation } from './kafka-access.plan';

const OPERATION: Record<AclOperation, AclOperationTypes> = {
  READ: AclOperationTypes.READ,
  WRITE: AclOperationTypes.WRITE,
  CREATE: AclOperationTypes.CREATE,
  DESCRIBE: AclOperationTypes.DESCRIBE,
  DESCRIBE_CONFIGS: AclOperationTypes.DESCRIBE_CONFIGS,
  ALTER_CONFIGS: AclOperationTypes.ALTER_CONFIGS,
};

/** The plan as Kafka ACL bindings: one ALLOW per operation, from any host. */
export function aclEntries(plan: readonly AclGrant[]): AclEntry[] {
  return plan.flatMap((grant) =>
    grant.operations.map((operation) => ({
      resourceType: grant.resource.type === 'topic' ? AclResourceTypes.TOPIC : AclResourceTypes.GROUP,
      resourceName: grant.resource.name,
      resourcePatternType: grant.resource.pattern === 'prefixed' ? ResourcePatternTypes.PREFIXED : ResourcePatternTypes.LITERAL,
      principal: grant.principal,
      host: '*',
      operation: OPERATION[operation],
      permissionType: AclPermissionTypes.ALLOW,
    })),
  );
}

/**
 * Creates the plan's bindings (Kafka keeps one copy of a binding however often it is created, so
 * this is idempotent). Needs ALTER on the cluster: run it with an administrator's credentials.
 * Returns how many bindings the plan holds.
 */
export async function applyKafkaAccess(kafka: Kafka, plan: readonly AclGrant[]): Promise<number> {
  const entries = aclEntries(plan);
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createAcls({ acl: entries });
    return entries.length;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
