import { createParamDecorator, type ExecutionContext, UnauthorizedException } from '@nestjs/common';
import type { AdminCall, OperatorPrincipal } from '@wts/application';
import type { FastifyRequest } from 'fastify';
import { CREDENTIAL_REQUIRED } from './operator.admission';
import './operator.request';

/** The admitted operator of an admin request, as who the writes are made by (their actor) and the request's trace. */
export const Caller = createParamDecorator((_data: unknown, context: ExecutionContext): AdminCall => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  return { actor: operatorOf(request).actor, traceparent: request.adminTraceparent };
});

/** The admitted operator (who, and their role): for "who am I". */
export const Operator = createParamDecorator((_data: unknown, context: ExecutionContext): OperatorPrincipal => {
  return operatorOf(context.switchToHttp().getRequest<FastifyRequest>());
});

function operatorOf(request: FastifyRequest): OperatorPrincipal {
  if (!request.operator) throw new UnauthorizedException(CREDENTIAL_REQUIRED);
  return request.operator;
}
