/// <reference types="jest" />
import { perTestContext } from '@wts/testing';
import { auditPagingContract } from './audit-paging.suite';
import { auditContract } from './audit.suite';
import { checkpointContract } from './checkpoint.suite';
import { deniedAccessContract } from './denied-access.suite';
import { newNamespace, newPositionBase, type ContractContext, type ReadModelContractSubject } from './contract.fixtures';
import { hourlyActivityContract } from './hourly-activity.suite';
import { ingressWritesContract } from './ingress-writes.suite';
import { lifecycleContract } from './lifecycle.suite';
import { listingContract } from './listing.suite';
import { payloadContract } from './payload.suite';
import { roundTripContract } from './round-trip.suite';
import { waitingContract } from './waiting.suite';

export type { ReadModelContractFactory, ReadModelContractSubject } from './contract.fixtures';

/**
 * The behaviour every ReadModelStore adapter must show, identically. Call it at the top level of
 * an adapter's *.int.spec.ts; `open` runs before each test and `cleanup` after it (closing the
 * store and every instance `openAnother` opened). Tests write under a per-test random namespace
 * and run one at a time, so a suite may share one database between its tests.
 */
export function readModelContract(name: string, open: () => Promise<ReadModelContractSubject>): void {
  describe(`ReadModelStore contract: ${name}`, () => {
    const context = perTestContext<ContractContext>(
      async () => {
        const subject = await open();
        return { subject, store: subject.store, ns: newNamespace(), base: newPositionBase() };
      },
      (finished) => finished.subject.cleanup(),
    );

    checkpointContract(context);
    listingContract(context);
    waitingContract(context);
    ingressWritesContract(context);
    hourlyActivityContract(context);
    roundTripContract(context);
    auditContract(context);
    auditPagingContract(context);
    deniedAccessContract(context);
    payloadContract(context);
    lifecycleContract(context);
  });
}
