/** The adapters' options and read limits, checked alike: a RangeError names the value and what it got. */

/** `defaults` with every option that was given (an option set to undefined keeps its default). */
export function withDefaults<T extends object>(defaults: Required<T>, options: T): Required<T> {
  return { ...defaults, ...(Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>) };
}

export function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
}

export function assertNonNegativeInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}
