/**
 * One EventStoreDB client per process. @eventstore/db-client 6.2.1 keeps the promises of batch
 * appends in one module-level table: with two clients, an error or dispose() on one rejects the
 * appends in flight on the other, and a late answer then throws inside a gRPC 'data' listener
 * (an uncaught exception). Every store opened with connect() therefore shares one client, which
 * is disposed when the last of them closes.
 */
import type { EventStoreDbClientFactory, EventStoreDbClientHandle } from './eventstoredb-client.port';

interface SharedEntry {
  readonly connectionString: string;
  readonly handle: EventStoreDbClientHandle;
  leases: number;
}

let shared: SharedEntry | undefined;

/** A share of the process's client; release() once. */
export interface ClientLease {
  readonly handle: EventStoreDbClientHandle;
  /** Resolves once the client is disposed (last lease) or immediately (others still use it). */
  release(): Promise<void>;
}

export function leaseSharedClient(connectionString: string, factory: EventStoreDbClientFactory): ClientLease {
  if (shared && shared.connectionString !== connectionString) {
    throw new Error(
      'another EventStoreDB connection string is already open in this process; @eventstore/db-client 6.2.1 cannot run two clients in one process safely (its batch-append promise table is global)',
    );
  }
  const entry: SharedEntry = shared ?? { connectionString, handle: factory(connectionString), leases: 0 };
  shared = entry;
  entry.leases += 1;
  let released = false;
  return {
    handle: entry.handle,
    release: async () => {
      if (released) return;
      released = true;
      entry.leases -= 1;
      if (entry.leases > 0) return;
      if (shared === entry) shared = undefined;
      await closeHandle(entry.handle);
    },
  };
}

/** Cancels the calls in flight, then closes the gRPC channel (6.2.1's dispose() leaves it open). */
export async function closeHandle(handle: EventStoreDbClientHandle): Promise<void> {
  try {
    await handle.client.dispose();
  } finally {
    await handle.channel.close();
  }
}
