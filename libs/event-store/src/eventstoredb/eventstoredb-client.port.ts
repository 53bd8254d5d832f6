/**
 * The seam between the adapter and @eventstore/db-client 6.2.1: the few calls the adapter makes,
 * typed narrowly so unit tests can put a fault-injecting double behind them, and the two channel
 * operations 6.2.1 does not offer publicly.
 */
import {
  EventStoreDBClient,
  type AllStreamResolvedEvent,
  type AppendResult,
  type AppendToStreamOptions,
  type EventData,
  type GetStreamMetadataOptions,
  type GetStreamMetadataResult,
  type ReadAllOptions,
  type ReadStreamOptions,
  type ResolvedEvent,
  type SetStreamMetadataOptions,
  type StreamMetadata,
  type SubscribeToAllOptions,
} from '@eventstore/db-client';

/** A streaming read as the adapter consumes it (the client's StreamingRead). */
export interface ClientRead<E> extends AsyncIterable<E> {
  cancel(): Promise<void>;
  destroy(error?: Error): void;
  readonly readableEnded: boolean;
}

/** A catch-up subscription as the adapter consumes it (the client's AllStreamSubscription). */
export interface ClientSubscription extends AsyncIterable<AllStreamResolvedEvent> {
  on(event: 'caughtUp' | 'confirmation', listener: () => void): unknown;
  push(chunk: unknown): boolean;
  unsubscribe(): Promise<void>;
  destroy(error?: Error): void;
}

/** The parts of EventStoreDBClient the adapter uses (EventStoreDBClient satisfies it). */
export interface EventStoreDbClientApi {
  appendToStream(streamName: string, events: EventData[], options: AppendToStreamOptions): Promise<AppendResult>;
  readStream(streamName: string, options: ReadStreamOptions): ClientRead<ResolvedEvent>;
  readAll(options: ReadAllOptions): ClientRead<AllStreamResolvedEvent>;
  subscribeToAll(options: SubscribeToAllOptions): ClientSubscription;
  getStreamMetadata(streamName: string, options: GetStreamMetadataOptions): Promise<GetStreamMetadataResult>;
  setStreamMetadata(streamName: string, metadata: StreamMetadata, options: SetStreamMetadataOptions): Promise<AppendResult>;
  /** Cancels the calls in flight. In 6.2.1 it leaves the gRPC channel open: see EventStoreDbChannel.close. */
  dispose(): Promise<void>;
}

/** Channel operations missing from 6.2.1's public API. */
export interface EventStoreDbChannel {
  /**
   * Drops the current gRPC channel so that the next call opens a new one (rediscovering the
   * leader). 6.2.1 does this itself only after UNAVAILABLE, CANCELLED and NOT_LEADER; the
   * successor client (@kurrent/kurrentdb-client) also after INTERNAL and DATA_LOSS.
   */
  reconnect(): Promise<void>;
  /** Closes the gRPC channel, after dispose(). */
  close(): Promise<void>;
}

export interface EventStoreDbClientHandle {
  readonly client: EventStoreDbClientApi;
  readonly channel: EventStoreDbChannel;
}

/** Builds a client from a connection string; throws on a malformed one. */
export type EventStoreDbClientFactory = (connectionString: string) => EventStoreDbClientHandle;

/** How long close() waits for 6.2.1 to hand out its channel (it may be rediscovering a cluster). */
const CHANNEL_CLOSE_WAIT_MS = 2000;

/**
 * 6.2.1 internals reached through a structural view: `getChannel` (protected) resolves the channel
 * every call uses, `handleError` (protected) is the client's own reconnect, which closes a failed
 * channel and lets the next call create a new one.
 */
interface ClientInternals {
  getChannel?: () => Promise<{ close(): void }>;
  handleError?: (grpcClient: { getChannel(): unknown }, error: Error) => Promise<void>;
}

/** The real client. */
export const createEventStoreDbClient: EventStoreDbClientFactory = (connectionString) =>
  handleOf(EventStoreDBClient.connectionString(connectionString));

/** A handle on an existing client. */
export function handleOf(client: EventStoreDBClient): EventStoreDbClientHandle {
  const internals = client as unknown as ClientInternals;
  let used = false;
  const api: EventStoreDbClientApi = {
    appendToStream: (...args) => ((used = true), client.appendToStream(...args)),
    readStream: (...args) => ((used = true), client.readStream(...args)),
    readAll: (...args) => ((used = true), client.readAll(...args)),
    subscribeToAll: (...args) => ((used = true), client.subscribeToAll(...args)),
    getStreamMetadata: (...args) => ((used = true), client.getStreamMetadata(...args)),
    setStreamMetadata: (...args) => ((used = true), client.setStreamMetadata(...args)),
    dispose: () => client.dispose(),
  };
  const currentChannel = async (): Promise<{ close(): void } | undefined> => {
    // Never create a channel (and run discovery) just to close it.
    if (!used || !internals.getChannel) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), CHANNEL_CLOSE_WAIT_MS)));
    try {
      return await Promise.race([internals.getChannel().catch(() => undefined), gaveUp]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    client: api,
    channel: {
      reconnect: async () => {
        const channel = await currentChannel();
        if (!channel || !internals.handleError) return;
        // An UNAVAILABLE error from the current channel makes 6.2.1 close it and start afresh.
        const unavailable = Object.assign(new Error('14 UNAVAILABLE: channel dropped after INTERNAL or DATA_LOSS'), {
          code: 14,
          details: 'channel dropped after INTERNAL or DATA_LOSS',
        });
        await internals.handleError({ getChannel: () => channel }, unavailable);
      },
      close: async () => {
        (await currentChannel())?.close();
      },
    },
  };
}
