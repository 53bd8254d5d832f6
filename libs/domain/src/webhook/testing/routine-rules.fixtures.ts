import fc from 'fast-check';

/**
 * Generators for fuzzing routine rules (issue 33: "a hostile expression or schema is refused at
 * save time or bounded at run time — fuzz it"): CEL sources built from the grammar, so that most
 * parse and many pass the save-time checks and reach evaluation, JSON Schemas built from the
 * keywords that cost (patterns, references, uniqueItems, enums, combinators), and payloads that
 * have the members the expressions select.
 */

/** Payload members the generated expressions select, so that evaluation goes past "no such key". */
const PATHS = ['body', 'body.action', 'body.list', 'body.s', 'body.n', 'body.pull_request.draft', 'body.list[0]', 'headers', 'event_type'];
const ELEMENTS = ['x', 'y'];
const MACROS = ['exists', 'all', 'exists_one', 'map', 'filter'];
const PATTERNS = ['(a+)+$', '(a|a)*$', '^[a-z]+$', '(x+x+)+y', '.*.*.*=.*', '[', '(?=a)', '\\p{L}+', '(a*)*b'];
/**
 * A schema's patterns run natively (ECMAScript), so the service saves only those PatternSafety
 * proves free of catastrophic backtracking (recheck-pattern-safety.adapter.int.spec.ts covers the others):
 * these are patterns it would save, and one that does not compile.
 */
const SCHEMA_PATTERNS = ['^[a-z]+$', '[', '\\p{L}+', '^ord_[0-9a-z]{4,12}$', '^[^@]+@[^@]+$'];

const literal = fc.oneof(
  fc.integer({ min: -1_000, max: 1_000 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => (Number.isInteger(value) ? `${value}.0` : String(value))),
  fc.string({ maxLength: 8 }).map((text) => JSON.stringify(text)),
  fc.constantFrom('true', 'false', 'null', '[]', '{}', 'b"ab"', '7u', '"opened"'),
);

const celTree = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    literal,
    fc.constantFrom(...PATHS, ...ELEMENTS),
    fc.tuple(fc.constantFrom('!', '-'), tie('expr')).map(([op, operand]) => `${op}(${operand})`),
    fc
      .tuple(tie('expr'), fc.constantFrom('==', '!=', '<', '>=', '+', '-', '*', '/', '%', '&&', '||', 'in'), tie('expr'))
      .map(([left, op, right]) => `(${left} ${op} ${right})`),
    fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([test, yes, no]) => `(${test} ? ${yes} : ${no})`),
    fc.tuple(tie('expr'), fc.constantFrom('size', 'string', 'int', 'double', 'type')).map(([arg, fn]) => `${fn}(${arg})`),
    fc
      .tuple(tie('expr'), fc.constantFrom('contains', 'startsWith', 'endsWith'), tie('expr'))
      .map(([target, fn, arg]) => `${target}.${fn}(${arg})`),
    fc.tuple(tie('expr'), fc.constantFrom(...PATTERNS)).map(([target, pattern]) => `${target}.matches(${JSON.stringify(pattern)})`),
    fc.constantFrom(...PATHS).map((path) => `has(${path.startsWith('body.') ? path.replace(/\[0\]$/, '') : 'body.action'})`),
    fc.array(tie('expr'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
    fc.tuple(tie('expr'), tie('expr')).map(([key, value]) => `{${key}: ${value}}`),
    fc
      .tuple(tie('expr'), fc.constantFrom(...MACROS), fc.constantFrom(...ELEMENTS), tie('expr'))
      .map(([range, macro, element, step]) => `${range}.${macro}(${element}, ${step})`),
  ),
}));

/** Token soup: mostly unparsable text, with the punctuation and names a parser has to cope with. */
const celSoup = fc
  .array(
    fc.constantFrom(
      '(',
      ')',
      '[',
      ']',
      '{',
      '}',
      '.',
      ',',
      '?',
      ':',
      '!',
      '&&',
      '||',
      '==',
      '"',
      "'",
      '\\',
      'body',
      'x',
      '1',
      'exists',
      'map',
      ' ',
    ),
    {
      maxLength: 60,
    },
  )
  .map((tokens) => tokens.join(''));

/** A CEL source: from the grammar, token soup, or any text. */
export const celSource: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: celTree.expr },
  { weight: 2, arbitrary: celSoup },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
);

const schemaTree = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(true, false, {}, { type: 'string' }, { type: ['number', 'null'] }, { $ref: '#' }, { $ref: '#/$defs/a' }),
    fc.constantFrom(...SCHEMA_PATTERNS).map((pattern) => ({ type: 'string', pattern })),
    fc.constantFrom({ $ref: 'https://example.com/s.json' }, { $ref: '#/nowhere' }, { unknownKeyword: 1 }, { format: 'email' }),
    fc.record({
      type: fc.constant('object'),
      properties: fc.dictionary(fc.constantFrom('a', 'b', 'action', 'list'), tie('schema'), { maxKeys: 3 }),
    }),
    fc.record({ type: fc.constant('object'), required: fc.array(fc.constantFrom('a', 'action', 'n'), { maxLength: 3 }) }),
    fc.record({ type: fc.constant('array'), items: tie('schema'), maxItems: fc.nat(50) }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('array'), uniqueItems: fc.constant(true), items: tie('schema') }, { requiredKeys: ['uniqueItems'] }),
    fc.record({ enum: fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 1, maxLength: 8 }) }),
    fc.record({ const: fc.jsonValue({ maxDepth: 2 }) }),
    fc.record({ minLength: fc.nat(10), maxLength: fc.nat(1_000), minimum: fc.integer() }, { requiredKeys: [] }),
    fc
      .tuple(fc.constantFrom('anyOf', 'allOf', 'oneOf'), fc.array(tie('schema'), { minLength: 1, maxLength: 3 }))
      .map(([key, list]) => ({ [key]: list })),
    tie('schema').map((inner) => ({ not: inner })),
    fc.tuple(tie('schema'), tie('schema')).map(([a, root]) => ({ $defs: { a }, ...(typeof root === 'object' ? root : {}) })),
  ),
}));

/** A schema as JSON text: from the keywords, any JSON value, or any text. */
export const schemaSource: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: schemaTree.schema.map((schema) => JSON.stringify(schema)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

/** A payload: any JSON value, or one with the members the expressions select. */
export const payload: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record({
    action: fc.constantFrom('opened', 'closed', 1),
    list: fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.constant({ a: 1 })), { maxLength: 8 }),
    s: fc.string({ maxLength: 30 }),
    n: fc.integer(),
    pull_request: fc.record({ draft: fc.boolean() }),
  }),
);

/** A JSON payload of `bytes` (as JSON text): half a list of objects with strings and lists, half one long string. */
export function bigPayload(bytes: number): Record<string, unknown> {
  const item = (index: number): Record<string, unknown> => ({ id: index, a: 1, name: `item-${index}`, tags: ['x', 'yy', 'a'.repeat(20)] });
  const count = Math.floor(bytes / 2 / (JSON.stringify(item(10_000)).length + 1));
  const shell = {
    action: 'opened',
    n: 1,
    pull_request: { draft: false },
    list: Array.from({ length: count }, (_, index) => item(index)),
    s: '',
  };
  return { ...shell, s: 'a'.repeat(bytes - JSON.stringify(shell).length) };
}
