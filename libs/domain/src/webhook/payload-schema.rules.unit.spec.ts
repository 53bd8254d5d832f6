import { cpuTimed } from '@wts/testing';
import { SCHEMA_LIMITS, compilePayloadSchema, isSchemaProblem, type CompiledSchema } from './payload-schema.rules';

const ORDER = {
  type: 'object',
  required: ['id', 'status'],
  properties: {
    id: { type: 'string', pattern: '^ord_[a-z0-9]+$' },
    status: { enum: ['paid', 'refunded'] },
    amount: { type: 'integer', minimum: 1 },
  },
};

function compiled(schema: unknown): CompiledSchema {
  const result = compilePayloadSchema(JSON.stringify(schema));
  if (isSchemaProblem(result)) throw new Error(`expected the schema to compile: ${result.message}`);
  return result;
}

function problemOf(source: string): string {
  const result = compilePayloadSchema(source);
  if (!isSchemaProblem(result)) throw new Error('expected the schema to be refused');
  return result.message;
}

describe('a payload schema (JSON Schema 2020-12)', () => {
  it('a conforming payload has no errors', () => {
    expect(compiled(ORDER).check({ id: 'ord_42', status: 'paid', amount: 10 })).toEqual([]);
  });

  it('lists every failing keyword with its instance path', () => {
    expect(compiled(ORDER).check({ id: 'ORD-42', status: 'lost', amount: 0 })).toEqual([
      { instance_path: '/id', keyword: 'pattern', message: 'must match pattern "^ord_[a-z0-9]+$"' },
      { instance_path: '/status', keyword: 'enum', message: 'must be equal to one of the allowed values' },
      { instance_path: '/amount', keyword: 'minimum', message: 'must be >= 1' },
    ]);
    expect(compiled(ORDER).check({})).toEqual([
      { instance_path: '', keyword: 'required', message: "must have required property 'id'" },
      { instance_path: '', keyword: 'required', message: "must have required property 'status'" },
    ]);
  });

  it(`lists at most ${SCHEMA_LIMITS.maxErrors} errors`, () => {
    const schema = { type: 'array', items: { type: 'string' } };
    expect(compiled(schema).check(Array.from({ length: 50 }, (_, i) => i))).toHaveLength(SCHEMA_LIMITS.maxErrors);
  });

  it('speaks 2020-12: prefixItems, $defs and unevaluatedProperties', () => {
    const schema = {
      $defs: { name: { type: 'string', minLength: 1 } },
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ $ref: '#/$defs/name' }, { type: 'integer' }] } },
      unevaluatedProperties: false,
    };
    expect(compiled(schema).check({ pair: ['a', 1] })).toEqual([]);
    expect(
      compiled(schema)
        .check({ pair: ['', 1], extra: true })
        .map((error) => error.keyword),
    ).toEqual(['minLength', 'unevaluatedProperties']);
  });

  it.each([
    ['not JSON', '{"type": ', /not JSON/],
    ['not a schema', '[1, 2]', /is an object/],
    ['an unknown keyword', '{"type": "object", "propertys": {}}', /unknown keyword: "propertys"/],
    ['a remote reference', '{"$ref": "https://example.com/schema.json"}', /is not inside the schema/],
    ['a broken pattern', '{"type": "string", "pattern": "(a"}', /does not compile: .*Invalid regular expression/],
    ['uniqueItems over objects', '{"type": "array", "uniqueItems": true, "items": {"type": "object"}}', /uniqueItems.*scalar/],
    ['nesting past the limit', JSON.stringify(nested(40)), /nests deeper than 32 levels/],
    [
      'a schema over the size limit',
      JSON.stringify({ enum: Array.from({ length: 20_000 }, (_, i) => `value-${i}`) }),
      /at most 65536 are accepted/,
    ],
  ])('refuses %s, saying why', (_name, source, message) => {
    expect(problemOf(source)).toMatch(message);
  });

  it('takes uniqueItems over scalar items (compared by value, in linear time)', () => {
    const schema = compiled({ type: 'array', uniqueItems: true, items: { type: 'integer' } });
    expect(schema.check([1, 2, 3])).toEqual([]);
    expect(schema.check([1, 2, 1]).map((error) => error.keyword)).toEqual(['uniqueItems']);
  });
});

function nested(depth: number): object {
  let schema: object = { type: 'string' };
  for (let level = 0; level < depth; level += 1) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

describe('payload schemas compiled one after another', () => {
  it('never meet: two schemas with the same $id each keep their own rules', () => {
    const first = compiled({ $id: 'https://example.com/order', type: 'object', required: ['a'] });
    const second = compiled({ $id: 'https://example.com/order', type: 'object', required: ['b'] });
    expect(first.check({ a: 1 })).toEqual([]);
    expect(second.check({ a: 1 }).map((error) => error.message)).toEqual(["must have required property 'b'"]);
  });
});

describe('a payload schema refusing a large payload', () => {
  it('lists its first error only, without collecting one per value (a small one lists its first errors)', () => {
    const schema = compiled({ type: 'array', items: { type: 'string', minLength: 2 } });
    const values = Array.from({ length: 50_000 }, () => 1);
    const { ms, result: errors } = cpuTimed(() => schema.check(values, 100_000));
    expect(errors).toEqual([{ instance_path: '/0', keyword: 'type', message: 'must be string' }]);
    expect(ms).toBeLessThan(250);
    expect(schema.check([1, 2, 'a'], 11)).toHaveLength(3);
  });
});

describe("a payload schema's timed try on tiny payloads", () => {
  /** A clock that jumps `stepMs` at each reading while `slow()` says so: a pause the schema did not cause. */
  function pausingClock(stepMs: number, slow: () => boolean): void {
    let now = 0;
    jest.spyOn(performance, 'now').mockImplementation(() => (now += slow() ? stepMs : 0.01));
  }
  afterEach(() => jest.restoreAllMocks());

  it('given one try slowed by a pause, when the schema is offered, then it is admitted (the next try is on time)', () => {
    let readings = 0;
    pausingClock(40, () => (readings += 1) <= 2);
    expect(isSchemaProblem(compilePayloadSchema(JSON.stringify(ORDER)))).toBe(false);
  });

  it('given every try slow, when the schema is offered, then it is refused as too costly', () => {
    pausingClock(40, () => true);
    expect(problemOf(JSON.stringify(ORDER))).toMatch(/takes more than 25 ms on tiny payloads/);
  });

  it('given every try slow, when a saved schema is compiled for deliveries, then it applies all the same (never dropped)', () => {
    pausingClock(40, () => true);
    const saved = compilePayloadSchema(JSON.stringify(ORDER), 'saved');
    if (isSchemaProblem(saved)) throw new Error(saved.message);
    expect(saved.check({ id: 'ord_42', status: 'lost' })).toEqual([
      { instance_path: '/status', keyword: 'enum', message: 'must be equal to one of the allowed values' },
    ]);
  });
});
