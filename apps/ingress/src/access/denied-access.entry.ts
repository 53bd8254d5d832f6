import type { ActorRecord } from '@wts/contracts';
import { isWellFormedId } from '@wts/domain';
import type { AuditRow } from '@wts/read-models';
import type { FastifyRequest } from 'fastify';
import { adminAccessOf } from './admin-access.config';

/** Which of the admin API's path parameters names what a request acts on. */
const TARGETS: readonly { readonly prefix: string; readonly type: string; readonly param: string; readonly kind?: 'routine' }[] = [
  { prefix: '/admin/routines/:id', type: 'routine', param: 'id', kind: 'routine' },
  { prefix: '/admin/accounts/:id', type: 'account', param: 'id' },
  { prefix: '/admin/api-keys/:id', type: 'api_key', param: 'id' },
  { prefix: '/admin/runs/:runId', type: 'run', param: 'runId' },
];

/** Ids longer than this are not kept (an attacker's path is not stored whole). */
const MAX_TARGET_ID = 128;

/**
 * The audit entry of an admin attempt refused with 401 or 403: who (when the credential named
 * someone), what it tried (the route's action), on what, and why. Never the credential itself.
 */
export function deniedAccessEntry(
  request: FastifyRequest,
  denial: { readonly actor: ActorRecord | null; readonly detail: string },
  facts: { readonly entryId: string; readonly at: string; readonly traceId: string | null },
): AuditRow {
  const url = request.routeOptions.url ?? '';
  const target = TARGETS.find((candidate) => url === candidate.prefix || url.startsWith(`${candidate.prefix}/`));
  const raw = target ? (request.params as Record<string, unknown> | undefined)?.[target.param] : undefined;
  const targetId = typeof raw === 'string' && raw.length <= MAX_TARGET_ID && /^[A-Za-z0-9_-]+$/.test(raw) ? raw : null;
  const routineId = target?.kind === 'routine' && targetId !== null && isWellFormedId('routine', targetId) ? targetId : null;
  return {
    entryId: facts.entryId,
    at: facts.at,
    actor: denial.actor,
    action: adminAccessOf(request).action,
    targetType: target?.type ?? 'admin_api',
    targetId,
    routineId,
    webhookId: null,
    outcome: 'denied',
    traceId: facts.traceId,
    detail: denial.detail,
    // The client as the app determines it: X-Forwarded-For only from a TRUST_PROXY peer.
    sourceAddress: request.ip,
  };
}
