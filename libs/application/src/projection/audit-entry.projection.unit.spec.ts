import { auditFactsOf } from './audit-entry.projection';

describe('auditFactsOf: WebhookRetentionChanged', () => {
  const changed = (payloadRetentionDays: number | null) =>
    auditFactsOf({
      type: 'WebhookRetentionChanged',
      data: { webhookId: 'whk_1', payloadRetentionDays, changedAt: '2024-05-01T10:00:00.000Z' },
    });

  it('is webhook.retention on the webhook, naming the days, or "default" for null', () => {
    expect(changed(30)).toEqual({
      action: 'webhook.retention',
      targetType: 'webhook',
      targetId: 'whk_1',
      routineId: null,
      webhookId: 'whk_1',
      detail: 'payload retention 30 days',
      occurredAt: '2024-05-01T10:00:00.000Z',
    });
    expect(changed(1)?.detail).toBe('payload retention 1 day');
    expect(changed(null)?.detail).toBe('payload retention default');
  });
});
