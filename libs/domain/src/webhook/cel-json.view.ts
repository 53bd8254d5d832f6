import type * as Cel from '@bufbuild/cel';

type CelInput = Cel.CelInput;
let cel: typeof Cel | undefined;

/**
 * @bufbuild/cel, loaded when the first filter is compiled: a fifth of a second of start-up that a
 * service whose webhooks have no filter never spends.
 */
export function celLibrary(): typeof Cel {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use (start-up time), typed by the import above
  return (cel ??= require('@bufbuild/cel') as typeof Cel);
}

/**
 * A JSON object as a CEL map, read where the expression reads it. Handed a plain object, CEL copies
 * all of its members into a new Map at every access (`body.a.b` copies `body`, then `body.a`); this
 * view looks up only the member asked for, and wraps a nested object the same way when it is
 * reached, so a filter costs what it reads, not the payload's size. Arrays go to CEL as they are
 * (its lists read by index).
 */
class JsonObjectView implements ReadonlyMap<string, CelInput> {
  constructor(private readonly members: Readonly<Record<string, unknown>>) {}

  get size(): number {
    return Object.keys(this.members).length;
  }

  get(key: string): CelInput | undefined {
    return typeof key === 'string' && Object.hasOwn(this.members, key) ? celJson(this.members[key]) : undefined;
  }

  has(key: string): boolean {
    return typeof key === 'string' && Object.hasOwn(this.members, key);
  }

  keys(): MapIterator<string> {
    return Object.keys(this.members)[Symbol.iterator]();
  }

  *entries(): MapIterator<[string, CelInput]> {
    for (const key of Object.keys(this.members)) yield [key, celJson(this.members[key])];
  }

  *values(): MapIterator<CelInput> {
    for (const key of Object.keys(this.members)) yield celJson(this.members[key]);
  }

  forEach(callback: (value: CelInput, key: string, map: ReadonlyMap<string, CelInput>) => void, thisArg?: unknown): void {
    for (const key of Object.keys(this.members)) callback.call(thisArg, celJson(this.members[key]), key, this);
  }

  [Symbol.iterator](): MapIterator<[string, CelInput]> {
    return this.entries();
  }
}

/** A JSON value as CEL reads it: objects as lazy maps, everything else as it is. */
export function celJson(value: unknown): CelInput {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return celLibrary().celMap(new JsonObjectView(value as Record<string, unknown>));
  }
  return value as CelInput;
}
