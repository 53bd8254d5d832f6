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
    const header = request.headers.authorization;
    const token = parseBearerSecret(typeof header === 'string' ? header : undefined) ?? '';
    const presented = createHash('sha256').update(token).digest();
    if (token !== '' && timingSafeEqual(presented, this.expected)) return true;
    void http.getResponse<FastifyReply>().header('www-authenticate', 'Bearer realm="admin"');
    throw new UnauthorizedException('a valid admin token is required');
  }
}

export function adminTokenDigest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
