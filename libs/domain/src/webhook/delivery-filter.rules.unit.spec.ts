import { cpuTimed } from '@wts/testing';
import { FILTER_LIMITS, compileFilter, isFilterProblem, type CompiledFilter, type FilterInput } from './delivery-filter.rules';

const PULL_REQUEST = { action: 'opened', pull_request: { draft: false, labels: [{ name: 'bug' }, { name: 'ui' }] }, number: 7 };
const input = (body: unknown, extra: Partial<FilterInput> = {}): FilterInput => ({
  event_type: 'pull_request',
  headers: { 'x-github-event': 'pull_request' },
  body,
  ...extra,
});

function compiled(source: string): CompiledFilter {
  const filter = compileFilter(source);
  if (isFilterProblem(filter)) throw new Error(`expected "${source}" to compile: ${filter.message}`);
  return filter;
}

function problemOf(source: string): string {
  const filter = compileFilter(source);
  if (!isFilterProblem(filter)) throw new Error(`expected "${source}" to be refused`);
  return filter.message;
}

describe('a delivery filter (CEL)', () => {
  it.each([
    ['body.action == "opened" && !body.pull_request.draft', 'matched'],
    ['body.action == "closed"', 'not_matched'],
    ['event_type == "pull_request" && headers["x-github-event"] == "pull_request"', 'matched'],
    ['body.pull_request.labels.exists(l, l.name == "bug")', 'matched'],
    ['body.pull_request.labels.all(l, l.name.startsWith("b"))', 'not_matched'],
    ['body.number > 5 && size(body.pull_request.labels) == 2', 'matched'],
    ['has(body.pull_request.merged)', 'not_matched'],
    ['body.action.matches("^op(en|ened)$")', 'matched'],
  ])('%s → %s', (source, result) => {
    expect(compiled(source).evaluate(input(PULL_REQUEST))).toEqual({ result });
  });

  it("knows whether it reads headers (a request's headers are built only for a filter that does)", () => {
    expect(compiled('body.action == "opened"').readsHeaders).toBe(false);
    expect(compiled('headers["x-github-event"] == "push"').readsHeaders).toBe(true);
    expect(compiled('body.action == "opened"').evaluate(input(PULL_REQUEST))).toEqual({ result: 'matched' });
  });

  it('sees a text payload as a string', () => {
    expect(compiled('body.contains("deploy")').evaluate(input('please deploy now'))).toEqual({ result: 'matched' });
  });

  it('fails open on an evaluation error, naming the kind and where, never the payload', () => {
    const outcome = compiled('body.missing == "secret-value"').evaluate(input({ other: 'customer@example.com' }));
    expect(outcome.result).toBe('error');
    const error = outcome.result === 'error' ? outcome.error : '';
    expect(error).toMatch(/at 1:\d+/);
    expect(error).not.toContain('customer@example.com');
  });

  it('a value that is not a bool is an error, not a match', () => {
    expect(compiled('body.number').evaluate(input(PULL_REQUEST))).toEqual({
      result: 'error',
      error: 'the filter gave a number, not a bool',
    });
  });

  it('refuses a syntax error saying where', () => {
    expect(problemOf('body.action ==')).toMatch(/does not parse: at 1:\d+/);
  });

  it.each([
    ['payload.action == "x"', /unknown name "payload" at 1:1/],
    ['lookup(body.action)', /unknown function "lookup" at 1:/],
    ['body.items.exists(i, i == body.target)', /inside a macro, refer to its element, not to "body"/],
    ['body.a.exists(x, x.b.exists(y, y.c.exists(z, z > 1)))', /macros nest deeper than 2 levels/],
    ['', /empty/],
  ])('refuses %s', (source, message) => {
    expect(problemOf(source)).toMatch(message);
  });

  it('allows a macro inside a macro over the outer element (commits → files)', () => {
    const filter = compiled('body.commits.exists(c, c.files.exists(f, f.endsWith(".md")))');
    expect(filter.evaluate(input({ commits: [{ files: ['a.ts'] }, { files: ['README.md'] }] }))).toEqual({ result: 'matched' });
  });

  it('refuses what exceeds its bounds: length, size, depth', () => {
    expect(problemOf('true || '.repeat(300) + 'true')).toMatch(/characters long/);
    expect(
      problemOf(
        Array.from({ length: 300 }, (_, i) => `body.a${i} == 1`)
          .join(' || ')
          .slice(0, FILTER_LIMITS.maxSourceLength),
      ),
    ).toMatch(/too large|nests deeper|does not parse/);
    expect(problemOf('['.repeat(60) + ']'.repeat(60) + ' == []')).toMatch(/nests deeper/);
  });

  it("bounds the macros' steps: within the budget they run, past it the delivery fails open without iterating", () => {
    const items = (length: number): unknown[] => Array.from({ length }, (_, i) => ({ id: i, name: `item-${i}` }));
    const filter = compiled('body.items.exists(i, i.name == "item-9999") && body.items.all(i, i.id >= 0)');
    expect(filter.evaluate(input({ items: items(FILTER_LIMITS.maxMacroSteps / 2) }))).toEqual({ result: 'matched' });
    const { ms, result: outcome } = cpuTimed(() => filter.evaluate(input({ items: items(60_000) })));
    expect(outcome).toEqual({
      result: 'error',
      error: expect.stringMatching(/more list elements than the filter's macros may visit \(10000\)/),
    });
    expect(ms).toBeLessThan(100);
  });

  it("a filter without macros is not limited by the payload's lists", () => {
    const items = Array.from({ length: 60_000 }, (_, i) => i);
    expect(compiled('size(body.items) == 60000').evaluate(input({ items }))).toEqual({ result: 'matched' });
  });
});
