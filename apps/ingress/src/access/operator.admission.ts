import {
  childTraceparent,
  traceIdOf,
  type Clock,
  type DeniedAccessRecorder,
  type OperatorAuthenticator,
  type RandomSource,
} from '@wts/application';
import type { ActorRecord } from '@wts/contracts';
import { roleAllows } from '@wts/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problem } from '../http/problem';
import { sendEarly } from '../http/early-answers';
import { adminAccessOf } from './admin-access.config';
import { deniedAccessEntry } from './denied-access.entry';
import './operator.request';

export const ADMIN_WWW_AUTHENTICATE = 'Bearer realm="admin"';
export const CREDENTIAL_REQUIRED = 'a valid admin credential is required: an OIDC access token, an API key (wtk_…) or the bootstrap token';
const UNAUTHORIZED_BODY = JSON.stringify(problem('unauthorized', CREDENTIAL_REQUIRED));
/** When to ask again after the identity provider could not be reached (its keys are refetched on the next token). */
const IDENTITY_PROVIDER_RETRY_AFTER_SECONDS = '5';
const UNAVAILABLE_BODY = JSON.stringify(
  problem('identity_provider_unavailable', 'the identity provider cannot be reached to check the token; try again'),
);

/**
 * The admin API's door, from the onRequest hook (before a byte of the body is read): who the
 * credential names (401 when nobody), and whether their role is enough for the route (403
 * `insufficient_role` naming the role needed). Every refusal is recorded for the audit trail, off
 * the request path; the credential never is.
 */
export class OperatorAdmission {
  constructor(
    private readonly authenticator: OperatorAuthenticator,
    private readonly denials: DeniedAccessRecorder,
    private readonly clock: Clock,
    private readonly random: RandomSource,
  ) {}

  /** For an admin route: true when the request goes on; false when it was answered (401, 403 or 503). */
  async admit(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const incoming = request.headers.traceparent;
    request.adminTraceparent = childTraceparent(typeof incoming === 'string' ? incoming : undefined, this.random);
    const authentication = await this.authenticator.authenticate(request.headers.authorization);
    if (authentication.kind === 'unavailable') {
      request.log.warn({ detail: authentication.detail }, 'identity provider unavailable: an admin token could not be checked');
      void reply.header('retry-after', IDENTITY_PROVIDER_RETRY_AFTER_SECONDS);
      sendEarly(reply, 503, 'identity_provider_unavailable', UNAVAILABLE_BODY);
      return false;
    }
    if (authentication.kind === 'denied') {
      this.recordDenial(request, authentication.actor, authentication.reason);
      void reply.header('www-authenticate', ADMIN_WWW_AUTHENTICATE);
      sendEarly(reply, 401, 'unauthorized', UNAUTHORIZED_BODY);
      return false;
    }
    const { principal } = authentication;
    const access = adminAccessOf(request);
    if (access.role !== 'signed_in' && !roleAllows(principal.role, access.role)) {
      const held = principal.role ?? 'no role';
      this.recordDenial(request, principal.actor, `insufficient_role: needs ${access.role}, has ${held}`);
      const detail = `${access.action} needs the role ${access.role}; ${principal.actor.display} has ${held}`;
      sendEarly(reply, 403, 'insufficient_role', JSON.stringify({ ...problem('insufficient_role', detail), required_role: access.role }));
      return false;
    }
    request.operator = principal;
    return true;
  }

  private recordDenial(request: FastifyRequest, actor: ActorRecord | null, detail: string): void {
    this.denials.recordDeniedAccess(
      deniedAccessEntry(
        request,
        { actor, detail },
        { entryId: this.random.uuid(), at: this.clock.now().toISOString(), traceId: traceIdOf(request.adminTraceparent) },
      ),
    );
  }
}
