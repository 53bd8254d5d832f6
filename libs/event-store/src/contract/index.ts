/** Test-only: imports jest globals. Not re-exported from the library's main index. */
export { describeEventStoreContract } from './event-store.suite';
export { expectUnavailableOnceClosed } from './contract.fixtures';
export type { EventStoreContractFactory, EventStoreContractSubject, EventStoreHandles } from './contract.fixtures';
