/**
 * What a payload schema's references cost, judged before it is saved. A `$ref` makes the checker
 * apply another part of the schema where it stands, so references can multiply the work without
 * the schema growing (each definition `allOf` two references to the one before doubles it), and a
 * reference that comes back to itself without stepping into the payload never ends. Here every
 * reference is followed as the checker would, counting the schema nodes it would visit for one
 * instance location (a check costs about that times the payload's values, so it is kept well below
 * what a schema without references reaches): past EXPANSION_LIMIT, or on a cycle that reads no part of the payload, the
 * schema is refused. A cycle that steps into the payload (a tree: `properties.children.items` back
 * to the root) is bounded by the payload's depth and counts once.
 */
export const EXPANSION_LIMIT = 2_000;

/** Keywords whose subschemas apply to a part of the instance (a member, an item), not to all of it. */
const DESCENDING = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentSchemas',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'contains',
]);

/** Keywords whose values are data (compared with the instance), not subschemas: never walked. */
const VALUES = new Set(['enum', 'const', 'examples', 'default']);

interface Frame {
  readonly node: object;
  /** The keywords taken from the frame before it to this one. */
  readonly via: readonly string[];
}

/** Why the schema's references cannot be saved, or undefined. */
export function referenceProblem(root: unknown): string | undefined {
  if (typeof root !== 'object' || root === null) return undefined;
  const anchors = collectAnchors(root);
  const costs = new Map<object, number>();
  const open: Frame[] = [];
  let problem: string | undefined;

  const resolve = (ref: string): object | undefined => {
    if (!ref.startsWith('#')) return undefined;
    if (ref === '#') return root;
    if (!ref.startsWith('#/')) return anchors.get(ref.slice(1));
    let node: unknown = root;
    for (const raw of ref.slice(2).split('/')) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
    }
    return typeof node === 'object' && node !== null ? node : undefined;
  };

  const cost = (node: object, via: readonly string[]): number => {
    if (problem !== undefined) return 0;
    const at = open.findIndex((frame) => frame.node === node);
    if (at >= 0) {
      const path = [...open.slice(at + 1).flatMap((frame) => frame.via), ...via];
      if (!path.some((key) => DESCENDING.has(key))) problem = 'a $ref comes back to itself without reading any part of the payload';
      return 1;
    }
    const known = costs.get(node);
    if (known !== undefined) return known;
    open.push({ node, via });
    let total = 1;
    for (const [key, value] of Object.entries(node)) {
      if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string') {
        const target = resolve(value);
        if (target === undefined) {
          problem ??= `the reference ${JSON.stringify(value)} is not inside the schema: use "#/$defs/…" or an "$anchor"`;
          break;
        }
        total += cost(target, [key]);
      } else if (typeof value === 'object' && value !== null && !VALUES.has(key)) {
        total += cost(value, [key]);
      }
      if (total > EXPANSION_LIMIT) problem ??= `its references expand to more than ${EXPANSION_LIMIT} schema nodes per payload value`;
      if (problem !== undefined) break;
    }
    open.pop();
    costs.set(node, total);
    return total;
  };

  cost(root, []);
  return problem;
}

/** `$anchor` and `$dynamicAnchor` names to the subschemas that declare them. */
function collectAnchors(root: object): Map<string, object> {
  const anchors = new Map<string, object>();
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, value] of Object.entries(node)) {
      if (VALUES.has(key)) continue;
      if ((key === '$anchor' || key === '$dynamicAnchor') && typeof value === 'string') anchors.set(value, node);
      pending.push(value);
    }
  }
  return anchors;
}
