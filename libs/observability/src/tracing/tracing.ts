import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  context,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

/**
 * OpenTelemetry traces, off unless the standard OTEL_* variables ask for them. While off, no SDK
 * is loaded and the instrumented paths test one boolean (no span, no context, no allocation).
 */
let enabled = false;

/** Whether spans are recorded in this process. */
export function tracingEnabled(): boolean {
  return enabled;
}

export interface TracingHandle {
  /** Ends the SDK: exports the spans still buffered (graceful shutdown calls it last). */
  shutdown(): Promise<void>;
}

/** A span processor, as @opentelemetry/sdk-trace-base defines it (tests pass an in-memory exporter's). */
export type SpanProcessorLike = NonNullable<
  ConstructorParameters<typeof import('@opentelemetry/sdk-node').NodeSDK>[0]
>['spanProcessors'] extends (infer P)[] | undefined
  ? P
  : never;

/**
 * Starts the SDK when `requested` (AppConfig.tracing.enabled) or when span processors are given (tests).
 * The SDK is loaded only then. `serviceName` applies unless OTEL_SERVICE_NAME names the service.
 */
export async function startTracing(options: {
  readonly requested: boolean;
  readonly serviceName: string;
  readonly spanProcessors?: SpanProcessorLike[];
}): Promise<TracingHandle | undefined> {
  if (!options.requested && !options.spanProcessors) return undefined;
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? options.serviceName,
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    // No auto-instrumentation: the spans are ours (request, append, publish, dispatch).
    instrumentations: [],
  });
  sdk.start();
  enabled = true;
  return {
    async shutdown(): Promise<void> {
      enabled = false;
      await sdk.shutdown();
    },
  };
}

export function tracer(): Tracer {
  return trace.getTracer('webhook-trigger-service');
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The context a W3C traceparent continues (the root when there is none, or it is invalid). */
export function contextOf(traceparent: string | undefined): Context {
  const match = traceparent ? TRACEPARENT.exec(traceparent.trim()) : null;
  if (!match || /^0+$/.test(match[1]) || /^0+$/.test(match[2])) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: match[1],
    spanId: match[2],
    traceFlags: Number.parseInt(match[3], 16),
    isRemote: true,
  });
}

/** The W3C traceparent naming `span`. */
export function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & TraceFlags.SAMPLED ? 1 : 0).toString(16).padStart(2, '0')}`;
}

/** Runs `work` in a new active span (child of `parent`, else of the active one); ends it, recording a failure. */
export async function inSpan<T>(name: string, kind: SpanKind, parent: Context | undefined, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { kind }, parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

export { SpanKind };
