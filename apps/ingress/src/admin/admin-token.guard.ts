import { type CanActivate, type ExecutionContext, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { parseBearerSecret } from '@wts/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';

export const ADMIN_TOKEN_DIGEST = Symbol('AdminTokenDigest');

/** `Authorization: Bearer <admin token>`, compared as digests in constant time; else 401. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(@Inject(ADMIN_TOKEN_DIGEST) private readonly expected: Buffer) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    if (presentsAdminToken(request.headers.authorization, this.expected)) return true;
    void http.getResponse<FastifyReply>().header('www-authenticate', ADMIN_WWW_AUTHENTICATE);
    throw new UnauthorizedException(ADMIN_TOKEN_REQUIRED);
  }
}

export const ADMIN_WWW_AUTHENTICATE = 'Bearer realm="admin"';
export const ADMIN_TOKEN_REQUIRED = 'a valid admin token is required';

/** Whether an Authorization header carries the admin token (digests compared in constant time). */
export function presentsAdminToken(header: string | string[] | undefined, expected: Buffer): boolean {
  const token = parseBearerSecret(typeof header === 'string' ? header : undefined) ?? '';
  const presented = createHash('sha256').update(token).digest();
  return timingSafeEqual(presented, expected) && token !== '';
}

export function adminTokenDigest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
