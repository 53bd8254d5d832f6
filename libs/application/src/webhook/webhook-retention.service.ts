import type { Rejection } from '@wts/domain';
import type { AdminCall } from '../access/admin-call';
import type { WebhookAdminService } from './webhook-admin.service';
import { kafkaRetentionRefusal, type WebhookView, type WebhookViewSettings } from './webhook.view';

/**
 * How long a webhook keeps its deliveries' payloads. A payload's expiry is fixed when its delivery
 * is accepted, so a change applies to deliveries accepted from then on: shortening it never
 * removes a stored payload (an operator erases those), lengthening it never revives one. With
 * Kafka, a retention shorter than routines.runs.v1 keeps copies of payloads is refused (400).
 */
export class WebhookRetentionService {
  constructor(
    private readonly webhooks: WebhookAdminService,
    /** With Kafka, its runs topic's window: a shorter retention is refused. */
    private readonly settings: Pick<WebhookViewSettings, 'kafkaRunsWindow'> = {},
  ) {}

  /** `payloadRetentionDays` null: back to PAYLOAD_RETENTION_SECONDS. The same value again records nothing. */
  async change(routineId: string, payloadRetentionDays: number | null, call: AdminCall): Promise<WebhookView | Rejection> {
    const tooShort = kafkaRetentionRefusal(this.settings, payloadRetentionDays);
    if (tooShort) return tooShort;
    return this.webhooks.decide(routineId, call, (now) => ({ type: 'ChangeRetention', payloadRetentionDays, now }));
  }
}
