/** Checks of what the ingress answers: RFC 9457 problems, and the framing of a run's payload. */
import type { Json } from './ingress-http.client';

export const PROBLEM_JSON = 'application/problem+json';

/** Asserts the RFC 9457 shape every error must have; returns the parsed problem. */
export function expectProblem(
  result: { status: number; headers: Headers; json: unknown; text: string },
  status: number,
  code?: string,
): Json {
  const contentType = result.headers.get('content-type') ?? '';
  if (!contentType.startsWith(PROBLEM_JSON))
    throw new Error(`expected ${PROBLEM_JSON}, got "${contentType}" (${result.status}: ${result.text})`);
  const body = result.json as Json;
  if (result.status !== status) throw new Error(`expected status ${status}, got ${result.status}: ${result.text}`);
  if (typeof body !== 'object' || body === null) throw new Error(`problem body is not an object: ${result.text}`);
  for (const field of ['type', 'title', 'status', 'code']) {
    if (!(field in body)) throw new Error(`problem body lacks "${field}": ${result.text}`);
  }
  if (typeof body.type !== 'string' || typeof body.title !== 'string' || typeof body.code !== 'string') {
    throw new Error(`problem fields have the wrong types: ${result.text}`);
  }
  if (body.status !== status) throw new Error(`problem status ${String(body.status)} differs from HTTP status ${status}`);
  if (!/^[a-z][a-z0-9_]*$/.test(body.code)) throw new Error(`problem code is not snake_case: ${body.code}`);
  if (code !== undefined && body.code !== code) throw new Error(`expected code ${code}, got ${body.code}: ${result.text}`);
  return body;
}

/** The framed payload line of a run's initial message (between the begin and end markers). */
export function framedPayloadLine(initialMessage: string): string {
  const lines = initialMessage.split('\n');
  const begin = lines.findIndex((line) => line.startsWith('<<<UNTRUSTED_PAYLOAD_BEGIN'));
  const end = lines.findIndex((line) => line.startsWith('<<<UNTRUSTED_PAYLOAD_END'));
  if (begin < 0 || end !== begin + 2) throw new Error(`no single framed payload line in: ${initialMessage}`);
  return lines[begin + 1] as string;
}
