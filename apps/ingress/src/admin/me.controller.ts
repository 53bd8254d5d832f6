import { Controller, Get } from '@nestjs/common';
import type { OperatorRole } from '@wts/contracts';
import { toActorView, type ActorView, type OperatorPrincipal } from '@wts/application';
import { OPERATOR_ROLES, roleAllows } from '@wts/domain';
import { Access } from '../access/admin-access.config';
import { Operator } from '../access/caller.decorator';

export interface WhoAmI {
  readonly actor: ActorView;
  readonly role: OperatorRole | null;
  /** Each role and whether this operator holds it (or one above): the Config page shows and hides by it. */
  readonly roles: Readonly<Record<OperatorRole, boolean>>;
}

/** `GET /admin/me`: who the credential names and what they may do — any valid credential, with or without a role. */
@Controller('admin/me')
export class MeController {
  @Get()
  @Access('signed_in', 'me.view')
  whoAmI(@Operator() operator: OperatorPrincipal): WhoAmI {
    const roles = Object.fromEntries(OPERATOR_ROLES.map((role) => [role, roleAllows(operator.role, role)])) as Record<
      OperatorRole,
      boolean
    >;
    return { actor: toActorView(operator.actor), role: operator.role ?? null, roles };
  }
}
