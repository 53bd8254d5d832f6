import { WebhookActivityLog, type RejectedAttempt } from './webhook-activity.log';

const WEBHOOK = 'whk_AAAAAAAAAAAAAAAAAAAAAA';
const OTHER = 'whk_BBBBBBBBBBBBBBBBBBBBBB';

const attempt = (n: number, webhookId = WEBHOOK, reason: RejectedAttempt['reason'] = 'wrong_secret'): RejectedAttempt => ({
  webhookId,
  reason,
  at: new Date(Date.UTC(2024, 4, 1, 12, 0, n)).toISOString(),
  sourceAddress: `203.0.113.${n % 256}`,
});

describe('WebhookActivityLog — rejected attempts', () => {
  it('has nothing for a webhook without attempts', () => {
    expect(new WebhookActivityLog().recent(WEBHOOK)).toEqual([]);
  });

  it('lists attempts newest first', () => {
    const log = new WebhookActivityLog();
    log.record(attempt(1));
    log.record(attempt(2, WEBHOOK, 'webhook_disabled'));
    log.record(attempt(3, WEBHOOK, 'invalid_json'));
    expect(log.recent(WEBHOOK)).toEqual([attempt(3, WEBHOOK, 'invalid_json'), attempt(2, WEBHOOK, 'webhook_disabled'), attempt(1)]);
  });

  it('keeps attempts per webhook', () => {
    const log = new WebhookActivityLog();
    log.record(attempt(1));
    log.record(attempt(2, OTHER));
    expect(log.recent(WEBHOOK)).toEqual([attempt(1)]);
    expect(log.recent(OTHER)).toEqual([attempt(2, OTHER)]);
  });

  it('keeps 100 attempts per webhook by default, dropping the oldest', () => {
    const log = new WebhookActivityLog();
    for (let n = 1; n <= 150; n++) log.record(attempt(n));
    const recent = log.recent(WEBHOOK);
    expect(recent).toHaveLength(100);
    expect(recent[0]).toEqual(attempt(150));
    expect(recent[99]).toEqual(attempt(51));
  });

  it('honours a configured bound', () => {
    const log = new WebhookActivityLog(3);
    for (let n = 1; n <= 5; n++) log.record(attempt(n));
    expect(log.recent(WEBHOOK)).toEqual([attempt(5), attempt(4), attempt(3)]);
  });

  it('a flood on one webhook does not evict another webhook’s attempts', () => {
    const log = new WebhookActivityLog(2);
    log.record(attempt(1, OTHER));
    for (let n = 1; n <= 50; n++) log.record(attempt(n));
    expect(log.recent(OTHER)).toEqual([attempt(1, OTHER)]);
    expect(log.recent(WEBHOOK)).toHaveLength(2);
  });

  it('hands out copies: changing a listing does not change the log', () => {
    const log = new WebhookActivityLog();
    log.record(attempt(1));
    log.recent(WEBHOOK).pop();
    expect(log.recent(WEBHOOK)).toHaveLength(1);
  });
});

describe('WebhookActivityLog — replays', () => {
  it('counts no replays for an unknown delivery', () => {
    expect(new WebhookActivityLog().replaysOf('dlv_AAAAAAAAAAAAAAAAAAAAAAAA')).toBe(0);
  });

  it('counts replays per delivery', () => {
    const log = new WebhookActivityLog();
    log.recordReplay('dlv_A');
    log.recordReplay('dlv_A');
    log.recordReplay('dlv_B');
    expect(log.replaysOf('dlv_A')).toBe(2);
    expect(log.replaysOf('dlv_B')).toBe(1);
  });

  it('keeps a bounded number of deliveries, forgetting the least recently replayed', () => {
    const log = new WebhookActivityLog(100, 2);
    log.recordReplay('dlv_A');
    log.recordReplay('dlv_B');
    log.recordReplay('dlv_A');
    log.recordReplay('dlv_C');
    expect(log.replaysOf('dlv_B')).toBe(0);
    expect(log.replaysOf('dlv_A')).toBe(2);
    expect(log.replaysOf('dlv_C')).toBe(1);
  });

  it('keeps replay counts apart from rejected attempts', () => {
    const log = new WebhookActivityLog();
    log.recordReplay(WEBHOOK);
    expect(log.recent(WEBHOOK)).toEqual([]);
  });
});
