import type { ActorRecord } from '@wts/contracts';

/**
 * Who is asking, on behalf of an admin request: every admin write carries it into the metadata of
 * the events it appends (the audit trail), with the trace the request came in on.
 */
export interface AdminCall {
  readonly actor: ActorRecord;
  /** The request's W3C traceparent, when it came with a valid one: the writes continue that trace. */
  readonly traceparent?: string;
}
