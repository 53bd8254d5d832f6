import type { FilterVerdict, PayloadRecord } from '@wts/contracts';
import {
  compileFilter,
  compilePayloadSchema,
  isFilterProblem,
  isSchemaProblem,
  type CompiledFilter,
  type CompiledSchema,
  type ConfiguredWebhook,
  type FilterOutcome,
  type ExtractedRequest,
  type SchemaError,
  reject,
  type Rejection,
} from '@wts/domain';

/**
 * A payload as a filter and a schema see it: JSON as plain values, or the text. The body's own
 * parse is used as it is when it holds plain values only (every number spelled as JavaScript
 * spells it: the usual case); otherwise the JSON is parsed natively once, on first use, from the
 * body's decoded text when there is one — a flat string parses faster than the payload's
 * re-serialised JSON — else from that JSON. Duplicate members never reach here: the body's
 * lossless parse refuses them, so both parses see the same values. Nothing here writes to a value.
 */
export class PlainPayload {
  private parsed: { readonly value: unknown } | undefined;
  readonly record: PayloadRecord;
  constructor(private readonly request: Pick<ExtractedRequest, 'payload' | 'json' | 'jsonIsPlain' | 'jsonText' | 'payloadInData'>) {
    this.record = request.payload;
  }

  get value(): unknown {
    this.parsed ??= { value: this.read() };
    return this.parsed.value;
  }

  private read(): unknown {
    if (this.record.format === 'text') return this.record.text;
    const { json, jsonIsPlain, jsonText, payloadInData } = this.request;
    if (jsonText === undefined) return JSON.parse(this.record.json);
    const whole: unknown = jsonIsPlain === true ? json : JSON.parse(jsonText);
    return payloadInData ? (whole as Record<string, unknown>)['data'] : whole;
  }
}

/**
 * A webhook's routine rules, compiled once per version: each webhook keeps at most its current
 * filter and schema here (replaced when the webhook's rule changes), so nothing grows with traffic
 * or with how often rules change. The rules on the webhook stream compiled when they were saved,
 * and a saved schema compiles again without the save's timed try (compilePayloadSchema's 'saved'),
 * so compiling again cannot fail, however busy the machine; were it to (a library upgrade), the
 * rule is treated as absent and the delivery runs — the fail-open direction, never a lost delivery.
 */
/** A rule's source and what it compiled to (null: it does not compile). */
interface Compiled<T> {
  readonly source: string;
  readonly rule: T | null;
}

export class RoutineRulesGate {
  private readonly filters = new Map<string, Compiled<CompiledFilter>>();
  private readonly schemas = new Map<string, Compiled<CompiledSchema>>();

  /** The first errors of a JSON payload that does not conform; undefined when it does, or nothing applies. */
  schemaErrors(webhook: ConfiguredWebhook, payload: PlainPayload): readonly SchemaError[] | undefined {
    if (webhook.payloadSchema === null || payload.record.format !== 'json') return undefined;
    const schema = this.compiled(this.schemas, webhook.webhookId, webhook.payloadSchema, (source) => {
      const compiled = compilePayloadSchema(source, 'saved');
      return isSchemaProblem(compiled) ? null : compiled;
    });
    const errors = schema?.check(payload.value, payload.record.json.length) ?? [];
    return errors.length === 0 ? undefined : errors;
  }

  /** The filter's outcome; undefined when the webhook has none. */
  filter(
    webhook: ConfiguredWebhook,
    input: { eventType: string; headers: () => Record<string, string>; payload: PlainPayload },
  ): FilterOutcome | undefined {
    if (webhook.filter === null) return undefined;
    const filter = this.compiled(this.filters, webhook.webhookId, webhook.filter, (source) => {
      const compiled = compileFilter(source);
      return isFilterProblem(compiled) ? null : compiled;
    });
    if (!filter) return undefined;
    return filter.evaluate({ event_type: input.eventType, headers: filter.readsHeaders ? input.headers() : {}, body: input.payload.value });
  }

  /** A webhook's rule as compiled for its current source (one that does not compile is kept as null, not retried per request). */
  private compiled<T>(cache: Map<string, Compiled<T>>, webhookId: string, source: string, compile: (source: string) => T | null): T | null {
    const cached = cache.get(webhookId);
    if (cached?.source === source) return cached.rule;
    const rule = compile(source);
    cache.set(webhookId, { source, rule });
    return rule;
  }
}

/** The 400 of a JSON payload its webhook's schema refuses: the first errors travel beside it (`errors`). */
export function schemaMismatch(errors: readonly SchemaError[]): Rejection {
  const first = errors[0];
  const where = first ? ` (first: ${first.instance_path || '/'} ${first.message})` : '';
  return reject('payload_schema_mismatch', `the payload does not match the webhook's payload schema${where}`);
}

/** A filter's outcome as the accepted delivery records it. */
export function filterVerdict(outcome: FilterOutcome): FilterVerdict {
  return outcome.result === 'error' ? { outcome: 'error', error: outcome.error } : { outcome: 'matched' };
}
