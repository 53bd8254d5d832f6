import type {
  AppendOptions,
  AppendResult,
  EventHandler,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  GlobalPosition,
  PayloadStore,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
  SubscriptionFilter,
} from '@wts/event-store';

export type RecordedCall =
  | { readonly call: 'append'; readonly streamId: string }
  | { readonly call: 'readStream'; readonly streamId: string; readonly fromRevision: bigint | undefined }
  | { readonly call: 'streamHeads'; readonly streamIds: readonly string[] }
  | { readonly call: 'readFirstEvents'; readonly streamIds: readonly string[] }
  | { readonly call: 'readAll'; readonly prefixes: readonly string[] | undefined }
  | { readonly call: 'subscribeToAll'; readonly prefixes: readonly string[] | undefined }
  | { readonly call: 'headPosition' };

/**
 * An EventStore that forwards to a real one and records what was asked of it, and which streams
 * each subscription handed to its handler: what a process reads, observed from outside.
 */
export class RecordingEventStore implements EventStore {
  readonly calls: RecordedCall[] = [];
  /** Stream ids handed to subscription handlers, by the subscription's prefixes (joined with ","; "*" unfiltered). */
  readonly delivered = new Map<string, string[]>();

  constructor(private readonly inner: EventStore) {}

  get maxEventBytes(): number {
    return this.inner.maxEventBytes;
  }

  /** Forgets what was recorded so far (calls and delivered streams). */
  reset(): void {
    this.calls.length = 0;
    this.delivered.clear();
  }

  append(streamId: string, events: readonly EventToAppend[], expected: ExpectedRevision, options?: AppendOptions): Promise<AppendResult> {
    this.calls.push({ call: 'append', streamId });
    return this.inner.append(streamId, events, expected, options);
  }

  payloads(): PayloadStore {
    return this.inner.payloads();
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<readonly RecordedEvent[]> {
    this.calls.push({ call: 'readStream', streamId, fromRevision: options?.fromRevision });
    return this.inner.readStream(streamId, options);
  }

  readFirstEvents(streamIds: readonly string[]): Promise<ReadonlyMap<string, RecordedEvent>> {
    this.calls.push({ call: 'readFirstEvents', streamIds: [...streamIds] });
    return this.inner.readFirstEvents(streamIds);
  }

  streamHeads(streamIds: readonly string[]): Promise<ReadonlyMap<string, bigint>> {
    this.calls.push({ call: 'streamHeads', streamIds: [...streamIds] });
    return this.inner.streamHeads(streamIds);
  }

  readAll(options: {
    readonly after?: GlobalPosition;
    readonly limit: number;
    readonly filter?: SubscriptionFilter;
  }): Promise<readonly RecordedEvent[]> {
    this.calls.push({ call: 'readAll', prefixes: options.filter?.streamPrefixes });
    return this.inner.readAll(options);
  }

  subscribeToAll(options: SubscribeOptions, handler: EventHandler): Subscription {
    const prefixes = options.filter?.streamPrefixes;
    this.calls.push({ call: 'subscribeToAll', prefixes });
    const key = prefixes ? [...prefixes].join(',') : '*';
    return this.inner.subscribeToAll(options, (event) => {
      const seen = this.delivered.get(key) ?? [];
      seen.push(event.streamId);
      this.delivered.set(key, seen);
      return handler(event);
    });
  }

  headPosition(): Promise<GlobalPosition | undefined> {
    this.calls.push({ call: 'headPosition' });
    return this.inner.headPosition();
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
