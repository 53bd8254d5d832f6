import type { FastifyReply } from 'fastify';
import { PROBLEM_CONTENT_TYPE, reasonPhrase, type ProblemCode } from './problem';

/** The problem code each answered request carried, for its log line (kept only as long as the response object lives). */
const codes = new WeakMap<object, ProblemCode>();

/**
 * Sends a problem+json answer: the status with the reason phrase that is the problem's title
 * (RFC 9110's names: "Content Too Large", "Unprocessable Content", where Node says otherwise), and
 * remembers its code for the request's log line.
 */
export function sendProblemBody(reply: FastifyReply, status: number, code: ProblemCode, body: string): void {
  codes.set(reply.raw, code);
  reply.raw.statusMessage = reasonPhrase(status);
  void reply.status(status).header('content-type', PROBLEM_CONTENT_TYPE).send(body);
}

/** The problem code the answer to this request carried, if it was a problem. */
export function problemCodeOf(reply: FastifyReply): ProblemCode | undefined {
  return codes.get(reply.raw);
}
