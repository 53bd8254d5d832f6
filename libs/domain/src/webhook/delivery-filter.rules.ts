import { celJson, celLibrary } from './cel-json.view';

/**
 * A webhook's filter: a CEL expression over `event_type`, `headers` and `body` that decides which
 * deliveries become runs (DESIGN.md, "Routine rules"). Evaluated with @bufbuild/cel (which runs the
 * official conformance data) and bounded in cost at save time: CEL has no loops but its macros
 * (`exists`, `all`, `map`, `filter`…), and inside a macro an expression may refer only to the
 * macro's own element, so each element of the payload is visited once per macro and an
 * evaluation costs at most the expression's size times the payload's (regular expressions are RE2:
 * linear time). The evaluation is synchronous and never throws: an error is an outcome.
 */
export const FILTER_LIMITS = {
  /** Characters of CEL source. */
  maxSourceLength: 2_048,
  /** Nodes of the parsed expression (macros count their expansion). */
  maxNodes: 400,
  /** How deep the parsed expression nests. */
  maxDepth: 40,
  /** Macros inside macros (commits.exists(c, c.files.exists(f, …))). */
  maxMacroNesting: 2,
  /**
   * Steps the macros may take on one delivery: the filter's macros times the list elements in the
   * payload. A delivery past it is an evaluation error (fail open: the run is made), so the worst
   * evaluation costs about what 20,000 steps do (~100 ms) whatever the payload holds.
   */
  maxMacroSteps: 20_000,
} as const;

/** What a filter sees of a delivery. `body` is the payload (JSON as plain values, or the text). */
export interface FilterInput {
  readonly event_type: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

export type FilterOutcome =
  | { readonly result: 'matched' }
  | { readonly result: 'not_matched' }
  /** The expression failed on this delivery (a missing field, a type mismatch, not a bool): fail open. */
  | { readonly result: 'error'; readonly error: string };

/** A filter ready to evaluate, compiled once per expression. */
export interface CompiledFilter {
  readonly source: string;
  /**
   * Whether the expression reads `headers`: building and converting a request's headers costs more
   * than evaluating a typical filter, so a filter that never reads them is given none.
   */
  readonly readsHeaders: boolean;
  evaluate(input: FilterInput): FilterOutcome;
}

/** Why an expression cannot be saved: a message that says where (line:column), for a 400. */
export interface FilterProblem {
  readonly kind: 'invalid_filter';
  readonly message: string;
}

const VARIABLES = new Set(['event_type', 'headers', 'body']);
/** The one CEL environment, made with the first filter (when the library is loaded). */
let env: ReturnType<ReturnType<typeof celLibrary>['celEnv']> | undefined;
const celEnvironment = (): NonNullable<typeof env> => (env ??= celLibrary().celEnv({}));

interface ExprNode {
  readonly id: bigint;
  readonly exprKind: { readonly case: string | undefined; readonly value?: unknown };
}
interface Comprehension {
  readonly iterVar: string;
  readonly iterVar2?: string;
  readonly accuVar: string;
  readonly iterRange: ExprNode;
  readonly accuInit: ExprNode;
  readonly loopCondition: ExprNode;
  readonly loopStep: ExprNode;
  readonly result: ExprNode;
}

/** Parses, checks and plans an expression; a problem says what and where. */
export function compileFilter(source: string): CompiledFilter | FilterProblem {
  if (source.trim().length === 0) return problem('the filter is empty: send null to remove it');
  if (source.length > FILTER_LIMITS.maxSourceLength) {
    return problem(`the filter is ${source.length} characters long; at most ${FILTER_LIMITS.maxSourceLength} are accepted`);
  }
  const { isCelError, parse, plan } = celLibrary();
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (error) {
    return problem(`the filter does not parse: ${String((error as Error).message).replace(/^<input>:/, 'at ')}`);
  }
  const positions = (parsed.sourceInfo?.positions ?? {}) as Record<string, number>;
  const where = (node: ExprNode): string => locate(source, positions[String(node.id)]);
  const found = inspect(parsed.expr as unknown as ExprNode, where);
  if (typeof found === 'string') return problem(found);
  const evaluate = plan(celEnvironment(), parsed);
  const elementBudget = found.macros === 0 ? Infinity : Math.floor(FILTER_LIMITS.maxMacroSteps / found.macros);
  const readsHeaders = found.variables.has('headers');
  return {
    source,
    readsHeaders,
    evaluate(input: FilterInput): FilterOutcome {
      if (elementBudget !== Infinity && listElementsExceed(input.body, elementBudget)) {
        return { result: 'error', error: `the payload holds more list elements than the filter's macros may visit (${elementBudget})` };
      }
      let value: unknown;
      try {
        value = evaluate({
          event_type: input.event_type,
          headers: celJson(input.headers),
          body: celJson(input.body),
        } as never);
      } catch (error) {
        return { result: 'error', error: errorText(String((error as Error).message), '') };
      }
      if (isCelError(value)) return { result: 'error', error: errorText(value.message, locate(source, positions[String(value.exprId)])) };
      if (typeof value !== 'boolean') return { result: 'error', error: `the filter gave ${describe(value)}, not a bool` };
      return value ? { result: 'matched' } : { result: 'not_matched' };
    },
  };
}

export function isFilterProblem(value: unknown): value is FilterProblem {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'invalid_filter';
}

function problem(message: string): FilterProblem {
  return { kind: 'invalid_filter', message };
}

/**
 * Walks the expression once: its size and depth, the names it uses (the three variables, and
 * inside a macro only that macro's element), the functions it calls (the standard library's).
 */
function inspect(
  root: ExprNode,
  where: (node: ExprNode) => string,
): string | { readonly macros: number; readonly variables: ReadonlySet<string> } {
  let nodes = 0;
  let macroCount = 0;
  const variables = new Set<string>();
  const visit = (node: ExprNode, depth: number, scope: ReadonlySet<string> | null, macros: number): string | undefined => {
    nodes += 1;
    if (nodes > FILTER_LIMITS.maxNodes) return `the filter is too large: at most ${FILTER_LIMITS.maxNodes} nodes once macros are expanded`;
    if (depth > FILTER_LIMITS.maxDepth) return `the filter nests deeper than ${FILTER_LIMITS.maxDepth} levels ${where(node)}`;
    const { case: kind, value } = node.exprKind;
    switch (kind) {
      case 'identExpr': {
        const name = (value as { name: string }).name;
        if (scope === null) {
          if (!VARIABLES.has(name)) return `unknown name "${name}" ${where(node)}: use event_type, headers or body`;
          variables.add(name);
          return undefined;
        }
        if (scope.has(name)) return undefined;
        return VARIABLES.has(name) || !name.startsWith('@')
          ? `inside a macro, refer to its element, not to "${name}" ${where(node)}: each element is visited once, which keeps a filter's cost bounded`
          : undefined;
      }
      case 'selectExpr':
        return visit((value as { operand: ExprNode }).operand, depth + 1, scope, macros);
      case 'callExpr': {
        const call = value as { function: string; target?: ExprNode; args: readonly ExprNode[] };
        if (!isOperator(call.function) && celEnvironment().funcs.find(call.function) === undefined) {
          return `unknown function "${call.function}" ${where(node)}`;
        }
        return visitAll([...(call.target ? [call.target] : []), ...call.args], depth, scope, macros);
      }
      case 'listExpr':
        return visitAll((value as { elements: readonly ExprNode[] }).elements, depth, scope, macros);
      case 'structExpr': {
        const entries = (value as { messageName: string; entries: readonly { mapKey?: ExprNode; value?: ExprNode }[] }).entries;
        if ((value as { messageName: string }).messageName) return `messages are not available in a filter ${where(node)}`;
        return visitAll(
          entries.flatMap((entry) => [entry.mapKey, entry.value].filter((part): part is ExprNode => part !== undefined)),
          depth,
          scope,
          macros,
        );
      }
      case 'comprehensionExpr': {
        const loop = value as Comprehension;
        macroCount += 1;
        if (macros + 1 > FILTER_LIMITS.maxMacroNesting) {
          return `macros nest deeper than ${FILTER_LIMITS.maxMacroNesting} levels ${where(node)}`;
        }
        // A macro over another macro's result (x.map(…).map(…)…) could grow its range with each link:
        // a range is the payload's (or a literal) list, never a computed one.
        if (containsMacro(loop.iterRange)) {
          return `a macro may not range over another macro's result ${where(node)}: filter or test the payload's list directly`;
        }
        const inner = new Set([loop.iterVar, loop.accuVar, ...(loop.iterVar2 ? [loop.iterVar2] : [])]);
        return (
          visit(loop.iterRange, depth + 1, scope, macros) ??
          visit(loop.accuInit, depth + 1, scope, macros) ??
          visitAll([loop.loopCondition, loop.loopStep, loop.result], depth, inner, macros + 1)
        );
      }
      default:
        return undefined; // constants
    }
  };
  const visitAll = (
    children: readonly ExprNode[],
    depth: number,
    scope: ReadonlySet<string> | null,
    macros: number,
  ): string | undefined => {
    for (const child of children) {
      const found = visit(child, depth + 1, scope, macros);
      if (found) return found;
    }
    return undefined;
  };
  return visit(root, 0, null, 0) ?? { macros: macroCount, variables };
}

/** Whether an expression holds a macro anywhere (a comprehension node). */
function containsMacro(node: ExprNode | undefined): boolean {
  if (node === undefined) return false;
  const { case: kind, value } = node.exprKind;
  if (kind === 'comprehensionExpr') return true;
  if (kind === 'selectExpr') return containsMacro((value as { operand: ExprNode }).operand);
  if (kind === 'callExpr') {
    const call = value as { target?: ExprNode; args: readonly ExprNode[] };
    return containsMacro(call.target) || call.args.some(containsMacro);
  }
  if (kind === 'listExpr') return (value as { elements: readonly ExprNode[] }).elements.some(containsMacro);
  if (kind === 'structExpr') {
    return (value as { entries: readonly { mapKey?: ExprNode; value?: ExprNode }[] }).entries.some(
      (entry) => containsMacro(entry.mapKey) || containsMacro(entry.value),
    );
  }
  return false;
}

/** Whether the payload's lists hold more than `budget` elements in all (stops counting past it). */
function listElementsExceed(body: unknown, budget: number): boolean {
  let left = budget;
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      left -= value.length;
      if (left < 0) return true;
      for (const item of value) if (typeof item === 'object' && item !== null) pending.push(item);
    } else {
      for (const member of Object.values(value)) if (typeof member === 'object' && member !== null) pending.push(member);
    }
  }
  return false;
}

/** Operators and the macros' internal calls, which the planner resolves itself. */
function isOperator(name: string): boolean {
  return name.startsWith('_') || name.startsWith('@') || name === '!_' || name === '-_';
}

function locate(source: string, offset: number | undefined): string {
  if (offset === undefined) return '';
  const before = source.slice(0, offset).split('\n');
  return `at ${before.length}:${(before.at(-1)?.length ?? 0) + 1}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return Array.isArray(value) ? 'a list' : 'a map or message';
  return `a ${typeof value === 'bigint' ? 'number' : typeof value}`;
}

/**
 * CEL's kinds of evaluation error, as recorded: a fixed text per kind. A message itself is never
 * kept — conversions quote the value they failed on ("Cannot convert <payload text> to a BigInt"),
 * and a payload must never reach an event (an event cannot be erased).
 */
const ERROR_KINDS: readonly (readonly [RegExp, string])[] = [
  [/^found no matching overload for '([_!@a-zA-Z0-9?:[\]-]{1,40})'/, 'no matching overload for'],
  [/^no such key/i, 'no such key'],
  [/^field not found/i, 'field not found'],
  [/divide by zero|division by zero/i, 'division by zero'],
  [/modulus by zero/i, 'modulus by zero'],
  [/overflow/i, 'overflow'],
  [/convert|conversion/i, 'conversion failed'],
  [/unbound|undeclared|no such function/i, 'unknown name or function'],
];

/** An evaluation error as recorded with its delivery: its kind (a fixed text) and where in the expression. */
function errorText(message: string, where: string): string {
  let kind = 'evaluation failed';
  for (const [pattern, text] of ERROR_KINDS) {
    const found = pattern.exec(message);
    if (found) {
      kind = found[1] === undefined ? text : `${text} '${found[1]}'`;
      break;
    }
  }
  return where ? `${kind} ${where}` : kind;
}
