/**
 * Proves a regular expression of a payload schema free of catastrophic backtracking before it is
 * saved: the engine then runs it natively on every delivery (ECMAScript, as JSON Schema specifies),
 * so a pattern that could take more than linear time on a crafted payload must never be saved.
 */
export interface PatternSafety {
  /** Undefined when the pattern is safe; otherwise why it is refused (its complexity, or that it could not be proven safe). */
  refusal(pattern: string): Promise<string | undefined>;
}
