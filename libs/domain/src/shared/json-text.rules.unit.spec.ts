import { nestsDeeperThan } from './json-text.rules';

describe('nestsDeeperThan', () => {
  it.each([
    ['a flat object', '{"a":1}', 1, false],
    ['arrays and objects at the limit', '{"a":[{"b":[]}]}', 4, false],
    ['one level past the limit', '{"a":[{"b":[[]]}]}', 4, true],
    ['siblings, each within the limit', '[[1],[2],{"c":[3]}]', 3, false],
    ['brackets inside strings', '{"a":"[[[[{{{{"}', 1, false],
    ['an escaped quote inside a string', '{"a":"\\"[[[["}', 1, false],
    ['a scalar', '"[[[["', 0, false],
  ])('given %s (%s, at most %i levels), then deeper is %s', (_name, text, maxDepth, expected) => {
    expect(nestsDeeperThan(text, maxDepth)).toBe(expected);
  });
});
