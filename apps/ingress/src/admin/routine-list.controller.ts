import { Controller, Get } from '@nestjs/common';
import { RoutinesService, WebhookAdminService, toRoutineView, type RoutineView } from '@wts/application';
import { isRejection } from '@wts/domain';
import { Access } from '../access/admin-access.config';

export type RoutineListItem = RoutineView & {
  readonly webhook_state: 'not_configured' | 'enabled' | 'disabled';
  readonly webhook_blocked: boolean;
};

/** `GET /admin/routines`: every routine, newest first, with its webhook's state — the Config page's routine list. */
@Controller('admin/routines')
export class RoutineListController {
  constructor(
    private readonly routines: RoutinesService,
    private readonly webhooks: WebhookAdminService,
  ) {}

  @Get()
  @Access('viewer', 'routine.list')
  list(): { routines: RoutineListItem[] } {
    const routines: RoutineListItem[] = [];
    for (const routine of this.routines.list()) {
      const webhook = this.webhooks.current(routine.routineId);
      if (isRejection(webhook)) continue;
      routines.push({ ...toRoutineView(routine), webhook_state: webhook.state, webhook_blocked: webhook.blocked });
    }
    return { routines };
  }
}
