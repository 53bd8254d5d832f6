import { EXPANSION_LIMIT, referenceProblem } from './schema-references.rules';

/** Definitions d1…d(n-1), each `allOf` two references to the one before: the work doubles with each. */
function doubling(count: number, reference: (i: number) => string = (i) => `#/$defs/d${i}`): Record<string, unknown> {
  const defs: Record<string, unknown> = { d0: { type: 'string', $anchor: 'a0' } };
  for (let i = 1; i < count; i += 1) defs[`d${i}`] = { $anchor: `a${i}`, allOf: [{ $ref: reference(i - 1) }, { $ref: reference(i - 1) }] };
  return defs;
}

describe("a payload schema's references", () => {
  it('accepts a schema without references, and references used once each', () => {
    expect(referenceProblem({ type: 'object', properties: { a: { type: 'string' } } })).toBeUndefined();
    expect(
      referenceProblem({ $defs: { name: { type: 'string' } }, properties: { a: { $ref: '#/$defs/name' }, b: { $ref: '#/$defs/name' } } }),
    ).toBeUndefined();
  });

  it('accepts a tree: a reference back to the root through a member steps into the payload each time', () => {
    expect(referenceProblem({ type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } })).toBeUndefined();
    expect(referenceProblem({ $defs: { node: { properties: { next: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' })).toBeUndefined();
  });

  it('refuses a reference that comes back without reading any part of the payload', () => {
    expect(referenceProblem({ $ref: '#' })).toMatch(/comes back to itself without reading any part of the payload/);
    expect(
      referenceProblem({ $defs: { a: { allOf: [{ $ref: '#/$defs/b' }] }, b: { anyOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' }),
    ).toMatch(/comes back to itself/);
  });

  it(`refuses references that multiply past ${EXPANSION_LIMIT} nodes, even reached only under a member, by pointer or by anchor`, () => {
    expect(referenceProblem({ $defs: doubling(7), properties: { x: { $ref: '#/$defs/d6' } } })).toBeUndefined();
    expect(referenceProblem({ $defs: doubling(20), properties: { x: { $ref: '#/$defs/d19' } } })).toMatch(/expand to more than 2000/);
    expect(referenceProblem({ $defs: doubling(20, (i) => `#a${i}`), properties: { x: { $ref: '#a19' } } })).toMatch(/expand to more than/);
  });

  it('refuses a reference it cannot follow inside the schema', () => {
    expect(referenceProblem({ $id: 'https://example.com/root', $defs: { a: { $id: 'a.json', type: 'string' } }, $ref: 'a.json' })).toMatch(
      /is not inside the schema/,
    );
  });

  it('never walks data: an enum of many objects is no expansion', () => {
    expect(referenceProblem({ enum: Array.from({ length: 10_000 }, (_, i) => ({ i })) })).toBeUndefined();
  });
});
