import type { PatternSafety } from '@wts/application';

/** The largest counted repetition ({n}, {m,n}) the analysis models exactly. */
const MAX_REPEAT_COUNT = 1_000;

/** How long one pattern may be analysed; past it, the pattern is refused as not proven safe. */
const ANALYSIS_TIMEOUT_MS = 5_000;

/**
 * PatternSafety with recheck (makenowjust-labs): an automaton analysis of the pattern, with
 * fuzzing where the automaton cannot model it, that reports a pattern `safe`, `vulnerable`
 * (exponential or polynomial, with an attack string) or `unknown`. Only what the automaton proves
 * safe is saved. It runs in
 * recheck's own agent process (its native build, else its JVM build, else a worker thread), so an
 * analysis never blocks the event loop; the flags are those Ajv compiles patterns with (`u`).
 * recheck is loaded on the first pattern (a third of a second of start-up that most services never need).
 */
export class RecheckPatternSafety implements PatternSafety {
  async refusal(pattern: string): Promise<string | undefined> {
    const { check } = await import('recheck');
    const diagnostics = await check(pattern, 'u', {
      timeout: ANALYSIS_TIMEOUT_MS,
      // Counted repetitions such as a hash's {40} or {64}: the automaton models them up to this count.
      maxRepeatCount: MAX_REPEAT_COUNT,
      maxSimpleRepeatCount: MAX_REPEAT_COUNT,
    });
    // Safe by the automaton analysis only: "safe" from fuzzing (what the automaton cannot model, or
    // too large an automaton) means nothing was found, not that nothing is there.
    if (diagnostics.status === 'safe' && diagnostics.checker === 'automaton') return undefined;
    if (diagnostics.status === 'safe') {
      return `the pattern ${JSON.stringify(pattern)} could not be proven free of catastrophic backtracking (the analysis could not build its automaton: too many states, or a feature it cannot model); simplify it`;
    }
    if (diagnostics.status === 'vulnerable') {
      const { complexity } = diagnostics;
      const degree = complexity.type === 'polynomial' ? ` (degree ${complexity.degree})` : '';
      return `the pattern ${JSON.stringify(pattern)} can backtrack catastrophically: ${complexity.type}${degree} time on a crafted string; rewrite it without ambiguous repetition`;
    }
    const { error } = diagnostics;
    const why = 'message' in error ? `${error.kind}: ${error.message}` : error.kind === 'timeout' ? 'its analysis timed out' : error.kind;
    return `the pattern ${JSON.stringify(pattern)} could not be proven free of catastrophic backtracking: ${why}`;
  }
}
