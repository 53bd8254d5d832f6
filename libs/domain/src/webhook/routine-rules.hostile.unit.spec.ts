import { cpuTimed } from '@wts/testing';
import { compileFilter, FILTER_LIMITS, isFilterProblem } from './delivery-filter.rules';
import { compilePayloadSchema, isSchemaProblem, SCHEMA_LIMITS, schemaPatterns } from './payload-schema.rules';
import { bigPayload } from './testing/routine-rules.fixtures';

/**
 * Hand-written hostile routine rules (issue 33): each is refused at save time or runs within
 * RUN_BOUND_MS without throwing on the largest payload a webhook accepts. The cases titled "was
 * unbounded" were found by this file before the rules refused or bounded them (the times measured
 * then are in their titles); each now passes only because they are.
 */
const RUN_BOUND_MS = 250;
const MAX_PAYLOAD_BYTES = 262_144;
const big = bigPayload(MAX_PAYLOAD_BYTES);
/** 200,000 a's and a final "!": what makes a backtracking engine try every split of the a's. */
const backtracking = { s: `${'a'.repeat(200_000)}!` };

type Judged = { readonly refused: string } | { readonly ms: number; readonly result: unknown };

/**
 * The cheapest of `runs` calls in CPU time: the first pays for JIT compilation once per process,
 * and CPU time, unlike wall time, does not count what other processes on the machine take.
 */
function timed(runs: number, call: () => unknown): { ms: number; result: unknown } {
  let best: { ms: number; result: unknown } = { ms: Number.POSITIVE_INFINITY, result: undefined };
  for (let run = 0; run < runs; run += 1) {
    const measured = cpuTimed(call);
    if (measured.ms < best.ms) best = measured;
  }
  return best;
}

/** Saves the filter and, when it is accepted, evaluates it over `body`, timed. */
function filterOn(source: string, body: unknown, runs = 3): Judged {
  const filter = compileFilter(source);
  if (isFilterProblem(filter)) return { refused: filter.message };
  return timed(runs, () => filter.evaluate({ event_type: 'push', headers: {}, body }).result);
}

/** Saves the schema and, when it is accepted, checks `body`, timed (a throw propagates: that is a failure). */
function schemaOn(schema: unknown, body: unknown, runs = 3): Judged {
  const compiled = compilePayloadSchema(JSON.stringify(schema));
  if (isSchemaProblem(compiled)) return { refused: compiled.message };
  return timed(runs, () => {
    const errors = compiled.check(body);
    return errors.length === 0 ? 'conforms' : errors[0]?.keyword;
  });
}

function expectBounded(judged: Judged): void {
  if ('refused' in judged) expect(judged.refused.length).toBeGreaterThan(0);
  else expect(judged.ms).toBeLessThan(RUN_BOUND_MS);
}

describe('hostile filters', () => {
  it.each([
    ['1,000 nested parentheses (they make no node)', `${'('.repeat(1_000)}body.action == "opened"${')'.repeat(1_000)}`],
    ['1,001 negations (the parser folds pairs)', `${'!'.repeat(1_001)}true`],
  ])('%s: accepted and bounded, or refused; never a thrown stack overflow', (_case, source) => {
    expectBounded(filterOn(source, big));
  });

  it.each([
    ['1,000 nested lists (the parser runs out of stack, caught)', `${'['.repeat(1_000)}1${']'.repeat(1_000)}`, 'does not parse'],
    ['50 nested lists', `${'['.repeat(50)}1${']'.repeat(50)}`, 'nests deeper'],
    ['a 10,000-term sum', `${'1 + '.repeat(9_999)}1`, `at most ${FILTER_LIMITS.maxSourceLength}`],
    ['130 alternatives within the length', `${'body.n == 1 || '.repeat(130)}true`, 'too large'],
    ['three macros nested', 'body.list.all(x, x.tags.all(t, [t].all(u, u != "")))', 'macros nest deeper'],
    ['the payload referred to inside a macro', 'body.list.all(x, body.list.exists(y, y.id == x.id))', 'inside a macro'],
  ])('%s: refused at save time, saying why', (_case, source, why) => {
    const judged = filterOn(source, big);
    expect('refused' in judged && judged.refused).toContain(why);
  });

  it('two nested macros over every element and tag of a 256 KiB payload: bounded', () => {
    const judged = filterOn('body.list.all(x, x.tags.all(t, t.size() < 100)) && body.list.exists(x, x.name == "item-999999")', big);
    expect(judged).toMatchObject({ result: 'not_matched' });
    expectBounded(judged);
  });

  it('a regular expression inside two macros, compiled for each of 20,000 tags: bounded', () => {
    const judged = filterOn('body.list.exists(x, x.tags.exists(t, t.matches("^(a+)+$") && t.size() > 100))', big);
    expect(judged).toMatchObject({ result: 'not_matched' });
    expectBounded(judged);
  });

  it.each([['(a+)+$'], ['^(a|a)*$'], ['^(a*)*b$']])('matches("%s") over 200,000 characters that backtrack: RE2 is linear', (pattern) => {
    const judged = filterOn(`body.s.matches(${JSON.stringify(pattern)})`, backtracking);
    expect(judged).toMatchObject({ result: 'not_matched' });
    expectBounded(judged);
  });

  it.each([['body.s + 1 == 2'], ['body[body.s] == 1'], ['timestamp(body.s) > timestamp("2020-01-01T00:00:00Z")']])(
    '%s: an error that records no payload text',
    (source) => {
      expect(recordedError(source)).not.toContain('hunter2');
    },
  );

  // WAS NOT AS DOCUMENTED (payload text recorded; now a fixed text per kind): int(), uint() and bool() of a payload string fail with
  // JavaScript's or CEL's message quoting the string ("Cannot convert hunter2 card 4111… to a
  // BigInt", "Unable to convert string 'hunter2…' to bool"), and errorText keeps up to the first
  // colon — the whole value when it has none. That text goes into DeliveryAccepted's filter.error,
  // an event that cannot be erased. Fix: record a fixed text per error kind, never CEL's message.
  it.each([['int(body.s) == 1'], ['uint(body.s) == 1u'], ['bool(body.s)']])(
    'was leaking: %s records a fixed error kind, never the payload string',
    (source) => {
      expect(recordedError(source)).not.toContain('hunter2');
    },
  );

  // WAS NOT BOUNDED (now refused or caught; measured on this shared machine 0.5–2.7 s at 16 maps, 1.7–3.7 s at 18, 33.7 s at
  // 20; each map doubles the list, so the cost is 8 × 2^maps elements): macros may be chained — a
  // macro's range may be another macro's result — and `x + x` inside one doubles every element,
  // so a ~290-character expression with no payload at all passes every save-time limit. Fix: count
  // chained macros as nested, or refuse list and string concatenation of the element with itself,
  // or give evaluation a budget.
  it('was unbounded (≈1.5–3.7 s): 18 chained maps, each doubling a list, then exists over the result', () => {
    const doubling = Array.from({ length: 18 }, (_, i) => `.map(v${i}, v${i} + v${i})`).join('');
    expectBounded(filterOn(`[[1, 2, 3, 4, 5, 6, 7, 8]]${doubling}[0].exists(z, z == 9)`, {}, 1));
  });
});

describe('hostile schemas', () => {
  it("a schema's patterns are all found, for PatternSafety to prove before the schema is saved (recheck-pattern-safety.adapter.int.spec.ts)", () => {
    const schema = {
      type: 'object',
      properties: { s: { type: 'string', pattern: '(a+)+$' }, list: { items: { pattern: '^(a|a)*$' } } },
      patternProperties: { '^x-(a*)*b$': { type: 'string' } },
      propertyNames: { pattern: '^[a-z_-]+$' },
    };
    expect([...schemaPatterns(JSON.stringify(schema))].sort()).toEqual(['(a+)+$', '^(a|a)*$', '^[a-z_-]+$', '^x-(a*)*b$']);
  });

  it.each([
    ['nesting past the limit', nested(SCHEMA_LIMITS.maxDepth), 'nests deeper'],
    ['uniqueItems over object items', { type: 'array', uniqueItems: true, items: { type: 'object' } }, 'compared pairwise'],
    ['uniqueItems with no items', { type: 'array', uniqueItems: true }, 'compared pairwise'],
    [
      'an enum past the size limit',
      { enum: Array.from({ length: 10_000 }, (_, i) => `value-${i}`) },
      `at most ${SCHEMA_LIMITS.maxSchemaBytes}`,
    ],
    [
      'a $ref cycle between two definitions',
      { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' },
      'comes back to itself',
    ],
    ['a remote $ref (never fetched)', { $ref: 'https://example.com/schema.json' }, 'is not inside the schema'],
  ])('%s: refused at save time, saying why', (_case, schema, why) => {
    const judged = schemaOn(schema, {});
    expect('refused' in judged && judged.refused).toContain(why);
  });

  it('uniqueItems over 50,000 objects where the items are declared scalar: linear, and at most the first errors', () => {
    const judged = schemaOn(
      { type: 'array', uniqueItems: true, items: { type: 'string' } },
      Array.from({ length: 50_000 }, (_, i) => ({ i })),
    );
    expect(judged).toMatchObject({ result: 'type' });
    expectBounded(judged);
  });

  it('an enum of 5,000 values against a 256 KiB payload: bounded', () => {
    expectBounded(schemaOn({ properties: { action: { enum: Array.from({ length: 5_000 }, (_, i) => `v${i}`) } } }, big));
  });

  it('a recursive schema (each level one level deeper in the payload) over a deep payload: bounded', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 60; level += 1) deep = { a: deep };
    const judged = schemaOn({ type: 'object', properties: { a: { $ref: '#' } } }, deep);
    expect(judged).toMatchObject({ result: 'type' });
    expectBounded(judged);
  });

  // WAS NOT BOUNDED (now refused or caught; throws RangeError "Maximum call stack size exceeded" in check, measured ~18 ms): a
  // reference to the root that consumes no part of the payload recurses without end; Ajv compiles
  // it. Fix: refuse a $ref reachable from its own target without a property/items step, or catch.
  it('was throwing: {"$ref": "#"} (a stack overflow on every payload) is refused at save time', () => {
    expectBounded(schemaOn({ $ref: '#' }, { a: 1 }, 1));
  });

  // WAS NOT BOUNDED (now refused or caught; throws TypeError "a.toString is not a function" from fast-deep-equal, Ajv's equality
  // for enum and const): a JSON payload with a member named toString or valueOf that is not a
  // function, against an enum or const with an object. Any sender can post it. Fix: catch in check
  // (a thrown check is a mismatch, not a 500), or give Ajv an equality that reads own members only.
  it('was throwing: {"enum": [{}]} against the payload {"toString": {}} is a mismatch, not a throw', () => {
    expectBounded(schemaOn({ anyOf: [{ enum: [{}] }] }, JSON.parse('{"toString":{}}'), 1));
  });

  // WAS NOT BOUNDED (now refused or caught; measured 0.27 s at 16 definitions, 0.88 s at 18, 1.3 s at 20; doubles with each):
  // each definition is allOf two references to the one before, so one check of a 1-byte payload
  // runs 2^(n-1) leaf checks; a 1.2 KB schema passes every save-time limit. Fix: refuse references
  // whose expansion exceeds a budget (count expanded nodes at save), or set Ajv inlineRefs and a
  // budget.
  it('was unbounded (≈1.3 s): 20 definitions, each allOf two $refs to the previous', () => {
    const defs: Record<string, unknown> = { d0: { type: 'string' } };
    for (let i = 1; i < 20; i += 1) defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };
    expectBounded(schemaOn({ $defs: defs, $ref: '#/$defs/d19' }, 5, 1));
  });
});

/** The error a filter records for a payload whose `s` is a secret; '' when it does not fail. */
function recordedError(source: string): string {
  const filter = compileFilter(source);
  if (isFilterProblem(filter)) throw new Error(filter.message);
  const outcome = filter.evaluate({ event_type: '', headers: {}, body: { s: 'hunter2 card 4111111111111111' } });
  expect(outcome.result).toBe('error');
  return outcome.result === 'error' ? outcome.error : '';
}

/** A schema whose JSON nests `depth` + 1 levels (properties → a → … ). */
function nested(depth: number): unknown {
  let schema: unknown = { type: 'string' };
  for (let level = 0; level * 2 <= depth; level += 1) schema = { properties: { a: schema } };
  return schema;
}
