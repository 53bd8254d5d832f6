import { ANY, BACKWARDS, END, StreamNotFoundError, jsonEvent, type ResolvedEvent } from '@eventstore/db-client';
import type { CheckpointStore, GlobalPosition } from '../event-store.port';
import { CHECKPOINT_STREAM_PREFIX } from './eventstoredb-event.mapping';
import type { EventStoreDbConnection } from './eventstoredb.connection';

export const CHECKPOINT_EVENT_TYPE = 'CheckpointSaved';

interface CheckpointData {
  readonly commit: string;
  readonly prepare: string;
}

export function checkpointStreamOf(name: string): string {
  return `${CHECKPOINT_STREAM_PREFIX}${name}`;
}

/**
 * Each named checkpoint is the last event of the user stream `checkpoint-<name>`, whose metadata
 * sets maxCount 1 so the server keeps (and scavenges down to) one event. A save is durable when the
 * append resolves. Obtain one through EventStoreDbEventStore.checkpoints().
 */
export class EventStoreDbCheckpointStore implements CheckpointStore {
  /** Streams whose maxCount this instance has checked or set. */
  private readonly capped = new Set<string>();

  constructor(private readonly connection: EventStoreDbConnection) {}

  async load(name: string): Promise<GlobalPosition | undefined> {
    const stream = checkpointStreamOf(assertName(name));
    const last = await this.connection.read(
      'checkpoint load',
      (client) => client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1, requiresLeader: true }),
      async (events: AsyncIterable<ResolvedEvent>) => {
        try {
          for await (const resolved of events) return resolved;
        } catch (error) {
          if (error instanceof StreamNotFoundError) return undefined;
          throw error;
        }
        return undefined;
      },
    );
    return last?.event ? parseCheckpoint(name, last.event.data) : undefined;
  }

  async save(name: string, position: GlobalPosition): Promise<void> {
    const stream = checkpointStreamOf(assertName(name));
    if (!this.capped.has(stream)) {
      await this.connection.call('checkpoint save', async (client, deadline) => {
        const { metadata } = await client.getStreamMetadata(stream, { deadline, requiresLeader: true });
        if (metadata?.maxCount !== 1)
          await client.setStreamMetadata(stream, { ...metadata, maxCount: 1 }, { deadline, requiresLeader: true });
      });
      this.capped.add(stream);
    }
    const data: CheckpointData = { commit: position.commit.toString(), prepare: position.prepare.toString() };
    await this.connection.call('checkpoint save', (client, deadline) =>
      client.appendToStream(stream, [jsonEvent({ type: CHECKPOINT_EVENT_TYPE, data: { ...data } })], {
        expectedRevision: ANY,
        deadline,
        requiresLeader: true,
      }),
    );
  }
}

function assertName(name: string): string {
  if (typeof name !== 'string' || name.length === 0) throw new RangeError('checkpoint name must be a non-empty string');
  return name;
}

export function parseCheckpoint(name: string, data: unknown): GlobalPosition {
  const candidate = data as Partial<CheckpointData> | null;
  if (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.commit === 'string' &&
    typeof candidate.prepare === 'string' &&
    /^-?\d+$/.test(candidate.commit) &&
    /^-?\d+$/.test(candidate.prepare)
  ) {
    return { commit: BigInt(candidate.commit), prepare: BigInt(candidate.prepare) };
  }
  throw new Error(`checkpoint ${name} in EventStoreDB is malformed: ${JSON.stringify(data)}`);
}
