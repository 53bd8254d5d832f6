import { perTestContext } from '@wts/testing';
import { appendContract } from './append.suite';
import { checkpointContract } from './checkpoint.suite';
import { newNamespace, type ContractContext, type EventStoreContractFactory } from './contract.fixtures';
import { payloadContract } from './payload.suite';
import { readContract } from './read.suite';
import { subscriptionContract } from './subscription.suite';

/**
 * The behaviour every EventStore + CheckpointStore adapter must show. Call it at the top level of
 * an adapter's *.int.spec.ts; `factory` runs before each test and `cleanup` after it. Tests only
 * look at streams under a per-test random prefix, so a shared server with other data works too.
 */
export interface ContractOptions {
  /**
   * Whether event ids are unique across the whole store (SQLite) rather than per stream
   * (EventStoreDB's idempotence is per stream). Not a port guarantee: only checked when true.
   */
  readonly globallyUniqueEventIds?: boolean;
}

export function describeEventStoreContract(name: string, factory: EventStoreContractFactory, options: ContractOptions = {}): void {
  describe(`EventStore contract: ${name}`, () => {
    const context = perTestContext<ContractContext>(
      async () => ({ subject: await factory(), ns: newNamespace() }),
      (finished) => finished.subject.cleanup(),
    );

    appendContract(context, options.globallyUniqueEventIds ?? false);
    readContract(context);
    subscriptionContract(context);
    checkpointContract(context);
    payloadContract(context);
  });
}
