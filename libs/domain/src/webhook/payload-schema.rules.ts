import { referenceProblem } from './schema-references.rules';
import type Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';

/**
 * A webhook's payload schema: a JSON Schema (2020-12) a JSON payload must meet before anything is
 * stored (DESIGN.md, "Routine rules"). Checked with Ajv, compiled once per schema (on one shared
 * Ajv that keeps none of them: nothing accumulates as schemas change), with limits that keep a hostile schema
 * from costing the service: its size and depth, no remote references, `uniqueItems` only over
 * scalar items (objects would be compared pairwise), a try on tiny payloads at save; and its
 * patterns — ECMAScript regular expressions, as JSON Schema specifies them, run by the engine — are
 * each proven free of catastrophic backtracking before the schema is saved (schemaPatterns, and the
 * application's PatternSafety port), so none can cost more than linear time on a payload.
 */
export const SCHEMA_LIMITS = {
  /** Bytes of the schema as JSON text. */
  maxSchemaBytes: 65_536,
  /** How deep the schema's JSON nests. */
  maxDepth: 32,
  /** Errors listed in a 400. */
  maxErrors: 10,
  /** Bytes of JSON payload up to which a refusal lists all its first errors (a larger one: its first). */
  maxDetailedBytes: 16_384,
} as const;

/** One reason a payload does not conform. */
export interface SchemaError {
  readonly instance_path: string;
  readonly keyword: string;
  readonly message: string;
}

export interface CompiledSchema {
  /** The schema as JSON text, as it was saved. */
  readonly source: string;
  /** The first errors, or an empty list when the payload conforms. `payloadBytes`: its size as JSON text (absent: small). */
  check(payload: unknown, payloadBytes?: number): readonly SchemaError[];
}

export interface SchemaProblem {
  readonly kind: 'invalid_schema';
  readonly message: string;
}

export function isSchemaProblem(value: unknown): value is SchemaProblem {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'invalid_schema';
}

const ajvInstances = new Map<boolean, Ajv2020>();

/**
 * Two Ajv for every schema — one stopping at the first error, one collecting every error — each
 * shared: a fresh one costs ~90 ms (it compiles the 2020-12 meta-schemas), a compile on a warm one
 * ~1 ms. removeSchema after each compile keeps them holding only the meta-schemas, so two
 * webhooks' schemas with the same `$id` never meet.
 */
function sharedAjv(allErrors: boolean): Ajv2020 {
  let ajv = ajvInstances.get(allErrors);
  if (!ajv) {
    // Loaded with the first schema: Ajv is start-up time that a service without schemas never spends.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, typed by the import above
    const { default: Ajv } = require('ajv/dist/2020') as { default: typeof Ajv2020 };
    ajv = new Ajv({ allErrors, strict: true, strictTypes: false, strictTuples: false, strictRequired: false, validateFormats: false });
    ajvInstances.set(allErrors, ajv);
  }
  return ajv;
}

/** The schema compiled both ways, or why it does not compile. */
function compileBoth(schema: object): { first: ValidateFunction; every: ValidateFunction } | string {
  const compile = (allErrors: boolean): ValidateFunction => {
    const ajv = sharedAjv(allErrors);
    try {
      return ajv.compile(schema);
    } finally {
      // The compiled function keeps working; the instance forgets the schema (and its $id).
      ajv.removeSchema(schema);
    }
  };
  try {
    return { first: compile(false), every: compile(true) };
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * How a schema is compiled: `admit` when it is offered (at save, or tried on a sample), with the
 * timed try on tiny payloads; `saved` for one admitted before (a delivery's check), without it —
 * a saved schema must apply the same under any load, never be dropped because a pause made a try slow.
 */
export type SchemaCompileUse = 'admit' | 'saved';

/** Parses and compiles a schema sent as JSON text; a problem says what and where. */
export function compilePayloadSchema(source: string, use: SchemaCompileUse = 'admit'): CompiledSchema | SchemaProblem {
  const size = Buffer.byteLength(source, 'utf8');
  if (size > SCHEMA_LIMITS.maxSchemaBytes) {
    return problem(`the schema is ${size} bytes; at most ${SCHEMA_LIMITS.maxSchemaBytes} are accepted`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(source);
  } catch (error) {
    return problem(`the schema is not JSON: ${(error as Error).message}`);
  }
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    return problem('a JSON Schema is an object (or true / false)');
  }
  const shape = checkShape(schema, '', 0);
  if (shape) return problem(shape);
  const references = referenceProblem(schema);
  if (references) return problem(references);
  const compiled = compileBoth(schema as object);
  if (typeof compiled === 'string') return problem(`the schema does not compile: ${compiled}`);
  const { first, every } = compiled;
  /**
   * `first` decides (it stops at the first failure); a payload it refuses is checked again by
   * `every` for the first errors only when it is small: with every error collected, a large payload
   * failing in each of its values would make millions of them. A large one gets its first error.
   */
  const check = (payload: unknown, payloadBytes = 0): readonly SchemaError[] => {
    try {
      if (first(payload)) return [];
      const detailed = payloadBytes <= SCHEMA_LIMITS.maxDetailedBytes && !every(payload) ? every.errors : first.errors;
      return (detailed ?? []).slice(0, SCHEMA_LIMITS.maxErrors).map(toSchemaError);
    } catch (error) {
      // Ajv can throw on data (its deep equality calls a payload member named toString) or on a
      // schema that recurses without end: the payload could not be shown to conform, so it does not.
      return [{ instance_path: '', keyword: 'schema', message: `the payload could not be checked: ${(error as Error).name}` }];
    }
  };
  const tooCostly = probe(first, use === 'admit');
  if (tooCostly) return problem(tooCostly);
  return { source, check };
}

/** Small payloads every schema is tried on once at save time: a schema that fails on one of these fails on every delivery. */
const PROBES: readonly unknown[] = [null, true, 0, 1.5, '', 'a', [], [0], [{}], {}, { a: {} }];
/** How long the probes may take in all: a schema that needs more on tiny payloads expands its references without bound. */
const PROBE_BUDGET_MS = 25;
/** Tries before a schema is refused as slow: a pause (GC, a busy machine) slows one try; an expanding schema is slow on each. */
const PROBE_ATTEMPTS = 3;

/**
 * Runs the compiled schema on the probes: one that throws (a reference that recurses without
 * consuming the payload, `{"$ref": "#"}`) is refused; when `timed`, so is one slow on tiny payloads
 * in each of PROBE_ATTEMPTS tries (references that multiply past what referenceProblem counts).
 */
function probe(validate: ValidateFunction, timed: boolean): string | undefined {
  for (let attempt = 1; ; attempt += 1) {
    const started = performance.now();
    let slow = false;
    for (const value of PROBES) {
      try {
        validate(value);
      } catch (error) {
        return `the schema cannot be applied (${(error as Error).name}: ${(error as Error).message}): a $ref that recurses without reading the payload?`;
      }
      slow = timed && performance.now() - started > PROBE_BUDGET_MS;
      if (slow) break;
    }
    if (!slow) return undefined;
    if (attempt === PROBE_ATTEMPTS) {
      return `the schema takes more than ${PROBE_BUDGET_MS} ms on tiny payloads: its references expand too much`;
    }
  }
}

function toSchemaError(error: ErrorObject): SchemaError {
  return { instance_path: error.instancePath, keyword: error.keyword, message: error.message ?? 'does not conform' };
}

function problem(message: string): SchemaProblem {
  return { kind: 'invalid_schema', message };
}

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/** Depth, and `uniqueItems` only where the items are declared scalar. `at` is a JSON Pointer. */
function checkShape(node: unknown, at: string, depth: number): string | undefined {
  if (depth > SCHEMA_LIMITS.maxDepth) return `the schema nests deeper than ${SCHEMA_LIMITS.maxDepth} levels at "${at}"`;
  if (typeof node !== 'object' || node === null) return undefined;
  if (!Array.isArray(node)) {
    const members = node as Record<string, unknown>;
    if (members['uniqueItems'] === true && !scalarItems(members['items'])) {
      return `"uniqueItems" at "${at || '/'}" needs "items" of a scalar "type" (string, number, integer, boolean or null): objects would be compared pairwise`;
    }
  }
  for (const [key, child] of Object.entries(node)) {
    const found = checkShape(child, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function scalarItems(items: unknown): boolean {
  if (typeof items !== 'object' || items === null) return false;
  const type = (items as { type?: unknown }).type;
  const types = Array.isArray(type) ? type : [type];
  return types.length > 0 && types.every((one) => typeof one === 'string' && SCALAR_TYPES.has(one));
}

/** Most patterns one schema may hold (each is proven safe at save, which takes a moment). */
export const MAX_SCHEMA_PATTERNS = 64;

/**
 * The regular expressions of a schema given as JSON text: every `pattern` string and every key of
 * a `patternProperties` object, wherever they sit (a member that only looks like one is checked
 * too: harmless). Unparsable text has none (compilePayloadSchema refuses it).
 */
export function schemaPatterns(source: string): readonly string[] {
  let schema: unknown;
  try {
    schema = JSON.parse(source);
  } catch {
    return [];
  }
  const patterns = new Set<string>();
  const pending: unknown[] = [schema];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') patterns.add(value);
      if (key === 'patternProperties' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
        for (const name of Object.keys(value)) patterns.add(name);
      }
      pending.push(value);
    }
  }
  return [...patterns];
}
