import {
  compileFilter,
  compilePayloadSchema,
  extractRequest,
  extractSignedRequest,
  isFilterProblem,
  isRejection,
  isSchemaProblem,
  parseContentType,
  reject,
  rulesProblem,
  schemaPatterns,
  MAX_SCHEMA_PATTERNS,
  type FilterOutcome,
  type Rejection,
  type RulesChange,
  type SchemaCompileUse,
  type SchemaError,
} from '@wts/domain';
import type { AdminCall } from '../access/admin-call';
import { PlainPayload } from '../delivery/routine-rules.gate';
import type { UseCaseContext } from '../shared/use-case.context';
import type { WebhookAdminService } from './webhook-admin.service';
import type { WebhookView } from './webhook.view';
import type { PatternSafety } from './pattern-safety.port';

/** A sample to try rules on, as the Config page's try-it panel sends it. */
export interface RulesSample {
  /** The body as text (a pasted sample, or a recent delivery's payload). */
  readonly body: string;
  /** Absent: application/json. */
  readonly contentType?: string | undefined;
  readonly eventType?: string | undefined;
  /** The headers the filter sees (lower-case names); absent: none. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** What trying rules found: each rule's verdict on the sample (null: no such rule). */
export interface RulesTrial {
  readonly filter:
    { readonly result: FilterOutcome['result']; readonly error?: string } | { readonly result: 'invalid'; readonly error: string } | null;
  readonly payload_schema:
    | { readonly result: 'conforms' | 'skipped' }
    | { readonly result: 'mismatch'; readonly errors: readonly SchemaError[] }
    | { readonly result: 'invalid'; readonly error: string }
    | null;
}

/**
 * A webhook's routine rules (docs/routine-rules.md): its CEL filter and its payload schema, changed
 * by events on the webhook stream — so every replica applies them as soon as it decides on that
 * stream, as with a rotated secret — and tried against a sample before they are saved.
 */
export class WebhookRulesService {
  constructor(
    private readonly context: UseCaseContext,
    private readonly webhooks: WebhookAdminService,
    private readonly patterns: PatternSafety,
  ) {}

  /**
   * Checks without writing (the PATCH and the enable check every setting before any is written):
   * what the decider checks (the filter and schema compile, within their bounds), and that each of
   * the schema's patterns is proven free of catastrophic backtracking, which takes I/O.
   */
  async check(rules: RulesChange): Promise<Rejection | undefined> {
    const problem = rulesProblem(rules);
    if (problem || typeof rules.payloadSchema !== 'string') return problem;
    const refusal = await this.patternRefusal(rules.payloadSchema);
    return refusal === undefined ? undefined : reject('invalid_payload_schema', `payload_schema: ${refusal}`);
  }

  /** Why one of a schema's patterns cannot be saved, if one cannot. */
  private async patternRefusal(schema: string): Promise<string | undefined> {
    const patterns = schemaPatterns(schema);
    if (patterns.length > MAX_SCHEMA_PATTERNS)
      return `the schema has ${patterns.length} patterns; at most ${MAX_SCHEMA_PATTERNS} are accepted`;
    const refusals = await Promise.all(patterns.map((pattern) => this.patterns.refusal(pattern)));
    return refusals.find((refusal) => refusal !== undefined);
  }

  change(routineId: string, rules: RulesChange, call: AdminCall): Promise<WebhookView | Rejection> {
    return this.webhooks.decide(routineId, call, (now) => ({ type: 'ChangeRules', rules, now }));
  }

  /**
   * Runs rules on a sample: those given, else the webhook's own (a routine without a webhook can
   * try only given ones). The sample is read as a delivery's body would be (JSON or text by its
   * content type); nothing is stored or recorded.
   */
  async tryRules(routineId: string, rules: RulesChange, sample: RulesSample): Promise<RulesTrial | Rejection> {
    await this.context.freshRoutine(routineId);
    if (!this.context.config.routine(routineId)) return reject('routine_not_found', `no routine ${routineId}`);
    const webhook = this.context.config.webhookOfRoutine(routineId);
    const own = webhook ?? { filter: null, payloadSchema: null };
    const filterSource = rules.filter !== undefined ? rules.filter : own.filter;
    const schemaGiven = rules.payloadSchema !== undefined;
    const schemaSource = schemaGiven ? rules.payloadSchema : own.payloadSchema;
    const contentType = parseContentType(sample.contentType ?? 'application/json');
    if (isRejection(contentType)) return contentType;
    // Read as the webhook reads its deliveries: a bearer webhook's JSON body may wrap its payload
    // ({"data": …, "account_email": …}); a signed sender's body is the payload whole.
    const bytes = Buffer.from(sample.body, 'utf8');
    const signed = webhook !== undefined && webhook.scheme !== 'bearer';
    const extracted = signed
      ? extractSignedRequest({ bytes, contentType })
      : extractRequest({ bytes, contentType, accountHeader: undefined });
    if (isRejection(extracted)) return reject('validation_failed', `sample: ${extracted.detail}`);
    const payload = new PlainPayload(extracted);
    const unsafePattern = schemaSource === null ? undefined : await this.patternRefusal(schemaSource);
    return {
      filter: filterSource === null ? null : tryFilter(filterSource, sample, payload),
      payload_schema:
        schemaSource === null
          ? null
          : unsafePattern
            ? { result: 'invalid', error: unsafePattern }
            : trySchema(schemaSource, payload, schemaGiven ? 'admit' : 'saved'),
    };
  }
}

function tryFilter(source: string, sample: RulesSample, payload: PlainPayload): RulesTrial['filter'] {
  const compiled = compileFilter(source);
  if (isFilterProblem(compiled)) return { result: 'invalid', error: compiled.message };
  const headers = Object.fromEntries(Object.entries(sample.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const outcome = compiled.evaluate({ event_type: sample.eventType ?? '', headers, body: payload.value });
  return outcome.result === 'error' ? { result: 'error', error: outcome.error } : { result: outcome.result };
}

/** A schema given is tried as a save would admit it; the webhook's own as deliveries apply it. */
function trySchema(source: string, payload: PlainPayload, use: SchemaCompileUse): RulesTrial['payload_schema'] {
  const compiled = compilePayloadSchema(source, use);
  if (isSchemaProblem(compiled)) return { result: 'invalid', error: compiled.message };
  if (payload.record.format !== 'json') return { result: 'skipped' };
  const errors = compiled.check(payload.value);
  return errors.length === 0 ? { result: 'conforms' } : { result: 'mismatch', errors };
}
