import { SpanKind } from '@opentelemetry/api';
import type { AppendOptions, AppendResult, EventStore, EventToAppend, ExpectedRevision } from '@wts/event-store';
import { inSpan, tracingEnabled, traceparentOf } from './tracing';

/**
 * The store with a span per append (a child of the active span: the request, or the dispatch),
 * whose context becomes the events' `traceparent`: what reads the events later (the relay, the
 * dispatcher) continues the trace from the append. While tracing is off, a plain delegation.
 * (Every tracing and metrics decoration has this shape: an object implementing the inner one's
 * interface, built by a `traced…(inner)` or `metered…(inner)` function at composition.)
 */
export function tracedEventStore(store: EventStore): EventStore {
  const append = store.append.bind(store);
  const tracedAppend = (
    streamId: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
    options?: AppendOptions,
  ): Promise<AppendResult> => {
    if (!tracingEnabled()) return append(streamId, events, expected, options);
    const category = streamId.slice(0, streamId.indexOf('-') + 1 || undefined);
    return inSpan(`event-store append ${category}`, SpanKind.CLIENT, undefined, async (span) => {
      span.setAttribute('wts.stream.category', category);
      span.setAttribute('wts.events', events.length);
      const traceparent = traceparentOf(span);
      const stamped = events.map((event) => ({ ...event, metadata: { ...event.metadata, traceparent } }));
      const result = await append(streamId, stamped, expected, options);
      span.setAttribute('wts.append.result', result.kind);
      return result;
    });
  };
  return {
    get maxEventBytes() {
      return store.maxEventBytes;
    },
    append: tracedAppend,
    payloads: () => store.payloads(),
    readStream: (streamId, options) => store.readStream(streamId, options),
    streamHeads: (streamIds) => store.streamHeads(streamIds),
    readFirstEvents: (streamIds) => store.readFirstEvents(streamIds),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (options, handler) => store.subscribeToAll(options, handler),
    headPosition: () => store.headPosition(),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
