import { RecheckPatternSafety } from './recheck-pattern-safety.adapter';

/**
 * The patterns of payload schemas run natively on every delivery, so only what recheck's automaton
 * proves free of catastrophic backtracking is saved: the classic exponential and polynomial
 * patterns are refused saying so, and the patterns webhook payloads usually need (counted
 * repetitions of a hash included) are accepted.
 */
describe('RecheckPatternSafety (recheck, its own agent process)', () => {
  const safety = new RecheckPatternSafety();

  it.each([
    '^ord_[a-z0-9]+$',
    '^[0-9a-f]{40}$',
    '^whsec_[A-Za-z0-9_-]{43}$',
    '^https?://[^/]+/.*$',
    '^[A-Z][a-z]+( [A-Z][a-z]+)*$',
    '^\\p{L}+$',
    '^[^@\\s]+@[^@\\s]+$',
  ])('accepts %s', async (pattern) => {
    expect(await safety.refusal(pattern)).toBeUndefined();
  });

  it.each([
    ['(a+)+$', /exponential time/],
    ['^(a|a)*$', /exponential time/],
    ['^(a*)*b$', /exponential time/],
    ['^\\d*\\d*x$', /polynomial \(degree 2\) time/],
    ['^(x+x+)+y$', /exponential time/],
  ])('refuses %s, saying how it backtracks', async (pattern, why) => {
    expect(await safety.refusal(pattern)).toMatch(why);
  });

  it('refuses a pattern that does not parse, saying so', async () => {
    expect(await safety.refusal('(a')).toMatch(/could not be proven|invalid/i);
  });
});
