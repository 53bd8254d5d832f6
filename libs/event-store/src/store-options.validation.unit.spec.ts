import { assertNonNegativeInteger, assertPositiveInteger, withDefaults } from './store-options.validation';

interface Options {
  readonly a?: number;
  readonly b?: string;
}

describe('store options: defaults and range checks shared by the adapters', () => {
  it('given options with some values undefined, when resolved, then given values win and undefined ones keep their default', () => {
    expect(withDefaults<Options>({ a: 1, b: 'x' }, { a: undefined, b: 'y' })).toEqual({ a: 1, b: 'y' });
    expect(withDefaults<Options>({ a: 1, b: 'x' }, {})).toEqual({ a: 1, b: 'x' });
  });

  it('given a value that is not a positive integer, when checked, then RangeError names the option and the value', () => {
    expect(() => assertPositiveInteger('pollIntervalMs', 0)).toThrow(new RangeError('pollIntervalMs must be a positive integer, got 0'));
    expect(() => assertPositiveInteger('pollIntervalMs', 1.5)).toThrow(RangeError);
    expect(() => assertPositiveInteger('pollIntervalMs', 1)).not.toThrow();
  });

  it('given a value that is not a non-negative integer, when checked, then RangeError names the limit and the value', () => {
    expect(() => assertNonNegativeInteger('readAll limit', -1)).toThrow(
      new RangeError('readAll limit must be a non-negative integer, got -1'),
    );
    expect(() => assertNonNegativeInteger('readAll limit', Number.NaN)).toThrow(RangeError);
    expect(() => assertNonNegativeInteger('readAll limit', 0)).not.toThrow();
  });
});
