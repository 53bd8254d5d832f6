import { RouteConfig } from '@nestjs/platform-fastify';
import type { OperatorRole } from '@wts/contracts';
import type { FastifyRequest } from 'fastify';

/** `signed_in`: any valid credential, with or without a role (who am I). */
export type RequiredAccess = OperatorRole | 'signed_in';

/** What an admin route needs, declared on its handler: the role, and the action's name in the audit trail. */
export interface AdminAccess {
  readonly role: RequiredAccess;
  /** The audit trail's name for the action (`webhook.rotate`): what a denied attempt tried. */
  readonly action: string;
}

/**
 * Declares an admin route's role and action (Fastify route config, so the onRequest hook reads it
 * before a byte of the body). A route under /admin without it needs `admin`: access fails closed.
 */
export const Access = (role: RequiredAccess, action: string): MethodDecorator =>
  RouteConfig({ adminAccess: { role, action } satisfies AdminAccess });

export function isAdminRoute(request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  return url !== undefined && (url === '/admin' || url.startsWith('/admin/'));
}

/** The access the request's route declared; a route that declared none needs admin. */
export function adminAccessOf(request: FastifyRequest): AdminAccess {
  const declared = (request.routeOptions.config as { adminAccess?: AdminAccess } | undefined)?.adminAccess;
  return declared ?? { role: 'admin', action: `${request.method} ${request.routeOptions.url ?? request.url}` };
}
