import { type CanActivate, type ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { isAdminRoute } from './admin-access.config';
import { CREDENTIAL_REQUIRED } from './operator.admission';
import './operator.request';

/**
 * Defence in depth: an admin route's handler runs only for a request the onRequest admission let
 * in (OperatorAdmission decides role and credential). A route reached some other way — a hook
 * that did not run — is refused, never served without an operator.
 */
@Injectable()
export class AdmittedOperatorGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!isAdminRoute(request) || request.operator) return true;
    throw new UnauthorizedException(CREDENTIAL_REQUIRED);
  }
}
