import type { WebhookEvent } from '@wts/contracts';
import { T0, T1, WEBHOOK_ID } from '@wts/testing';
import type { WebhookCommand } from './webhook.decider';
import type { RulesChange } from './webhook-rules.decider';
import { T2, configured, disabled, enable, enabled, fold, spec } from './testing/webhook.decider.fixtures';

const FILTER = 'body.action == "opened"';
const SCHEMA = '{"type":"object","required":["action"]}';

const change = (rules: RulesChange, now = T1): WebhookCommand => ({ type: 'ChangeRules', rules, now });
const filterChanged = (filter: string | null, changedAt = T1): WebhookEvent => ({
  type: 'WebhookFilterChanged',
  data: { webhookId: WEBHOOK_ID, filter, changedAt },
});
const schemaChanged = (payloadSchema: string | null, changedAt = T1): WebhookEvent => ({
  type: 'WebhookPayloadSchemaChanged',
  data: { webhookId: WEBHOOK_ID, payloadSchema, changedAt },
});

describe('webhookDecider: routine rules', () => {
  it('given an enabled webhook, when a filter and a schema are set, then one event each', () => {
    spec
      .given([enabled()])
      .when(change({ filter: FILTER, payloadSchema: SCHEMA }))
      .then([filterChanged(FILTER), schemaChanged(SCHEMA)]);
  });

  it('given a filter, when only the schema is named, then the filter is left alone', () => {
    spec
      .given([enabled(), filterChanged(FILTER)])
      .when(change({ payloadSchema: SCHEMA }, T2))
      .then([schemaChanged(SCHEMA, T2)]);
  });

  it('given a filter, when it is set to null, then it is removed', () => {
    spec
      .given([enabled(), filterChanged(FILTER)])
      .when(change({ filter: null }, T2))
      .then([filterChanged(null, T2)]);
  });

  it('given the same rules, when set again, then nothing is recorded', () => {
    spec
      .given([enabled(), filterChanged(FILTER), schemaChanged(SCHEMA)])
      .when(change({ filter: FILTER, payloadSchema: SCHEMA }, T2))
      .then([]);
  });

  it('given a disabled webhook, when rules are set, then they are kept for its next deliveries', () => {
    spec
      .given([enabled(), disabled()])
      .when(change({ filter: FILTER }, T2))
      .then([filterChanged(FILTER, T2)]);
  });

  it('given no webhook, when rules are set, then webhook_not_configured', () => {
    spec
      .given([])
      .when(change({ filter: FILTER }))
      .thenRejects('webhook_not_configured');
  });

  it('given an enabled webhook, when the filter does not parse, then invalid_filter says where and nothing is recorded', () => {
    spec
      .given([enabled()])
      .when(change({ filter: 'body.action ==', payloadSchema: SCHEMA }))
      .thenRejects('invalid_filter', /filter: the filter does not parse: at 1:\d+/);
  });

  it('given an enabled webhook, when the schema does not compile, then invalid_payload_schema', () => {
    spec
      .given([enabled()])
      .when(change({ payloadSchema: '{"type":"object","propertys":{}}' }))
      .thenRejects('invalid_payload_schema', /payload_schema: .*unknown keyword/);
  });

  it('given nothing, when enabled with rules, then the rules follow WebhookEnabled', () => {
    spec
      .given([])
      .when(enable({ rules: { filter: FILTER, payloadSchema: SCHEMA } }))
      .then([enabled(), filterChanged(FILTER, T0), schemaChanged(SCHEMA, T0)]);
  });

  it('given nothing, when enabled with an invalid filter, then nothing is enabled', () => {
    spec
      .given([])
      .when(enable({ rules: { filter: 'nope(' } }))
      .thenRejects('invalid_filter');
  });

  it('folds: the rules are in the state, and enabling again starts without them', () => {
    expect(fold([enabled(), filterChanged(FILTER), schemaChanged(SCHEMA)])).toEqual(
      configured('enabled', { filter: FILTER, payloadSchema: SCHEMA }),
    );
    expect(fold([enabled(), filterChanged(FILTER), disabled(), enabled()])).toEqual(configured('enabled'));
  });
});
