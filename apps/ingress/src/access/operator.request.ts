import type { OperatorPrincipal } from '@wts/application';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the admin request's credential names (set by the onRequest admission; null elsewhere). */
    operator: OperatorPrincipal | null;
    /** The admin request's own traceparent: the caller's trace continued, or a new one. */
    adminTraceparent: string;
  }
}

export {};
