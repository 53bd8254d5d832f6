import { parse } from 'lossless-json';
import { canonicalJson } from './json-canonical.format';

const canonical = (text: string): string => canonicalJson(parse(text));

describe('canonicalJson (RFC 8785 over lossless-json values)', () => {
  it("given the RFC 8785 §3.2.2 sample (numbers a double holds), then the RFC's own output", () => {
    const input =
      '{"numbers": [1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}';
    expect(canonical(input)).toBe(
      '{"literals":[null,true,false],"numbers":[1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('given members in another order and other whitespace, then the same form (sorted by UTF-16 code units, at every depth)', () => {
    expect(canonical('{ "b" : [ 1 , { "z":1,"a":2 } ] ,\n "a":"x" }')).toBe(canonical('{"a":"x","b":[1,{"a":2,"z":1}]}'));
    // U+20AC (0x20AC) sorts before U+1F600 (its first code unit is 0xD83D), as RFC 8785 §3.2.3 asks.
    expect(canonical('{"\\ud83d\\ude00":2,"\\u20ac":1,"a":3}')).toBe('{"a":3,"€":1,"😀":2}');
  });

  it('given one number spelled differently (1, 1.0, 1e0, 10e-1), then one form; -0 is 0', () => {
    const forms = ['1', '1.0', '1e0', '10e-1', '0.1e1'].map((n) => canonical(`{"n":${n}}`));
    expect(new Set(forms)).toEqual(new Set(['{"n":1}']));
    expect(canonical('[-0, 0.0]')).toBe('[0,0]');
  });

  it('given numbers a double cannot hold, then their exact value decides: spellings of it agree, another digit differs', () => {
    const big = canonical('{"n":12345678901234567890}');
    expect(canonical('{"n":12345678901234567890.000e0}')).toBe(big);
    expect(canonical('{"n":1.234567890123456789e19}')).toBe(big);
    expect(canonical('{"n":12345678901234567891}')).not.toBe(big);
    // RFC 8785's own sample number: more digits than the double it rounds to keeps.
    expect(canonical('{"n":333333333.33333329}')).not.toBe(canonical('{"n":333333333.3333333}'));
    expect(canonical('{"n":9007199254740993}')).not.toBe(canonical('{"n":9007199254740992}'));
    expect(canonical('{"n":1e400}')).not.toBe(canonical('{"n":1e401}'));
  });

  it('given a string, a number and an exact-number lookalike, then three different forms', () => {
    const forms = ['{"n":"12345678901234567890"}', '{"n":12345678901234567890}', '{"n":1}'].map(canonical);
    expect(new Set(forms).size).toBe(3);
  });

  it('given __proto__ as a member name, then it is kept as a member (no prototype games)', () => {
    expect(canonical('{"__proto__":{"x":1},"a":1}')).toBe('{"__proto__":{"x":1},"a":1}');
  });

  it('given any scalar at the top, then its canonical form', () => {
    expect(canonical('"text"')).toBe('"text"');
    expect(canonical(' null ')).toBe('null');
    expect(canonical('[ ]')).toBe('[]');
  });
});
