/** What JSON.parse makes of `text`: its value, or that it refuses the text (the oracle the JSON minifier is checked against). */
export function jsonParseOf(text: string): { readonly valid: true; readonly value: unknown } | { readonly valid: false } {
  try {
    return { valid: true, value: JSON.parse(text) as unknown };
  } catch {
    return { valid: false };
  }
}
