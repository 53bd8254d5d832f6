import { eventually } from '@wts/testing';
import { useIngressReplicas, useIngressTestApp } from '../../../test/support/ingress-test-app';

type Json = Record<string, unknown>;

const OPENED = { action: 'opened', pull_request: { draft: false, title: 'Fix the parser' } };
const FILTER = 'body.action == "opened" && !body.pull_request.draft';
const SCHEMA = {
  type: 'object',
  required: ['action', 'pull_request'],
  properties: { action: { enum: ['opened', 'closed', 'edited'] }, pull_request: { type: 'object', required: ['draft'] } },
};

/**
 * Routine rules at the public endpoint, against a real store: the filter (match, no match, an
 * evaluation error failing open, an invalid expression), the payload schema (pass, fail, text
 * skipped), where they sit in the order of checks, and what is recorded.
 */
describe('routine rules (ingress)', () => {
  const t = useIngressTestApp({ WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000' });

  const patch = (routineId: string, body: unknown): ReturnType<typeof t.admin> =>
    t.admin('PATCH', `/admin/routines/${routineId}/webhook`, body);
  const eventsOf = async (type: string, webhookId: string): Promise<Json[]> =>
    (await t.allEvents())
      .filter((event) => event.type === type && (event.data as { webhookId?: string }).webhookId === webhookId)
      .map((event) => ({ streamId: event.streamId, ...(event.data as Json) }));
  const send = (
    hook: { webhookId: string; secret: string },
    body: unknown,
    headers: Record<string, string> = {},
  ): ReturnType<typeof t.deliver> => t.deliver(hook, { body: JSON.stringify(body), headers });

  it('a matching delivery runs; one the filter turns away is answered 200 filtered, recorded, and makes no run', async () => {
    const hook = await t.setupWebhook();
    expect((await patch(hook.routineId, { filter: FILTER })).status).toBe(200);

    const matched = await send(hook, OPENED);
    expect(matched.status).toBe(202);
    const closed = await send(hook, { ...OPENED, action: 'closed' });
    expect(closed.status).toBe(200);
    expect(closed.json).toEqual({ delivery_id: expect.stringMatching(/^dlv_/), run_id: null, status: 'filtered' });

    const accepted = await eventsOf('DeliveryAccepted', hook.webhookId);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]).toMatchObject({ deliveryId: (matched.json as Json).delivery_id, filter: { outcome: 'matched' } });
    const filtered = await eventsOf('DeliveryFiltered', hook.webhookId);
    expect(filtered).toEqual([
      expect.objectContaining({
        streamId: `filtered_delivery-${(closed.json as Json).delivery_id as string}`,
        routineId: hook.routineId,
        eventType: '',
        contentType: 'application/json',
        filterDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    // The filtered delivery's payload is kept nowhere: not in its event.
    expect(JSON.stringify(filtered[0])).not.toContain('Fix the parser');
  });

  it('a filter that fails to evaluate makes the run (fail open) and records why, without payload text', async () => {
    const hook = await t.setupWebhook();
    await t.adminOk('PATCH', `/admin/routines/${hook.routineId}/webhook`, { filter: 'body.pull_request.merged_by == "someone"' }, 200);
    const answer = await send(hook, OPENED);
    expect(answer.status).toBe(202);
    const [accepted] = await eventsOf('DeliveryAccepted', hook.webhookId);
    expect(accepted).toMatchObject({ filter: { outcome: 'error', error: expect.stringMatching(/at 1:\d+$/) } });
    expect(JSON.stringify(accepted)).not.toContain('Fix the parser');
  });

  it('sees headers by lower-case name, never the Authorization header', async () => {
    const hook = await t.setupWebhook();
    await t.adminOk(
      'PATCH',
      `/admin/routines/${hook.routineId}/webhook`,
      { filter: 'headers["x-event"] == "push" && !("authorization" in headers)' },
      200,
    );
    expect((await send(hook, OPENED, { 'X-Event': 'push' })).status).toBe(202);
    expect((await send(hook, OPENED, { 'X-Event': 'tag' })).status).toBe(200);
  });

  it('an invalid expression is a 400 saying where, and changes nothing', async () => {
    const hook = await t.setupWebhook();
    for (const [filter, where] of [
      ['body.action ==', /does not parse: at 1:\d+/],
      ['body.items.exists(i, i == body.x)', /inside a macro.*at 1:\d+/],
      ['sha256(body)', /unknown function "sha256" at 1:1/],
    ] as const) {
      const answer = await patch(hook.routineId, { filter, payload_retention_days: 9 });
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ code: 'invalid_filter', detail: expect.stringMatching(where) });
    }
    expect(await eventsOf('WebhookFilterChanged', hook.webhookId)).toEqual([]);
    expect(await eventsOf('WebhookRetentionChanged', hook.webhookId)).toEqual([]);
    expect((await patch(hook.routineId, { filter: 42 })).json).toMatchObject({ code: 'validation_failed' });
  });

  it('a payload that fails the schema is a 400 listing the first errors, nothing stored; one that passes runs; text skips it', async () => {
    const hook = await t.setupWebhook();
    const set = await patch(hook.routineId, { payload_schema: SCHEMA });
    expect(set.json).toMatchObject({ payload_schema: SCHEMA, filter: null });

    const refused = await send(hook, { action: 'deleted', pull_request: {} });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      code: 'payload_schema_mismatch',
      errors: [
        { instance_path: '/action', keyword: 'enum', message: 'must be equal to one of the allowed values' },
        { instance_path: '/pull_request', keyword: 'required', message: "must have required property 'draft'" },
      ],
    });
    expect(await eventsOf('DeliveryAccepted', hook.webhookId)).toEqual([]);
    expect((await send(hook, OPENED)).status).toBe(202);
    // A pattern that could backtrack catastrophically is never saved (it would run natively on every delivery).
    const unsafe = await patch(hook.routineId, { payload_schema: { properties: { action: { type: 'string', pattern: '^(a+)+$' } } } });
    expect(unsafe.status).toBe(400);
    expect(unsafe.json).toMatchObject({
      code: 'invalid_payload_schema',
      detail: expect.stringMatching(/can backtrack catastrophically: exponential/),
    });
    expect(
      (await patch(hook.routineId, { payload_schema: { properties: { action: { type: 'string', pattern: '^[a-z]{2,40}$' } } } })).status,
    ).toBe(200);
    await patch(hook.routineId, { payload_schema: SCHEMA });
    expect((await t.deliver(hook, { contentType: 'text/plain', body: 'not json at all' })).status).toBe(202);
    expect(await eventsOf('DeliveryAccepted', hook.webhookId)).toHaveLength(2);
    // Wrapped bodies ({data, account_email}) are checked on their payload, as runs see it.
    expect((await send(hook, { data: OPENED })).status).toBe(202);
  });

  it('never changes a 404, 415 or 413: authentication, content type and size come first', async () => {
    const hook = await t.setupWebhook();
    await patch(hook.routineId, { payload_schema: SCHEMA, filter: 'false' });
    expect((await t.deliver({ ...hook, secret: `${hook.secret}x` }, { body: '{}' })).status).toBe(404);
    expect((await t.deliver(hook, { contentType: 'application/xml', body: '<a/>' })).status).toBe(415);
    expect((await t.deliver(hook, { body: JSON.stringify({ pad: 'x'.repeat(300_000) }) })).status).toBe(413);
    expect((await send(hook, { action: 'nope' })).status).toBe(400);
    expect((await send(hook, OPENED)).status).toBe(200);
  });

  it('the enable body takes rules; rules are on the audit trail (the schema as its digest) and can be tried before saving', async () => {
    const account = await t.createAccount();
    const routine = await t.createRoutine({ account_scope: [account.id] });
    const enabled = await t.adminOk(
      'POST',
      `/admin/routines/${routine.id}/webhook/enable`,
      { default_account: account.email, account_override_allowed: false, filter: FILTER, payload_schema: SCHEMA },
      200,
    );
    expect(enabled).toMatchObject({ filter: FILTER, payload_schema: SCHEMA });
    // The audit trail is a read model: projected shortly after the events.
    await eventually(
      async () => {
        const audit = (await t.adminOk('GET', `/admin/audit?routine_id=${routine.id}`, undefined, 200)) as { entries: Json[] };
        expect(audit.entries.map((entry) => [entry.action, entry.detail])).toEqual(
          expect.arrayContaining([
            ['webhook.filter', `filter ${FILTER}`],
            ['webhook.payload_schema', expect.stringMatching(/^payload schema sha256:[0-9a-f]{64}$/)],
          ]),
        );
        return true;
      },
      10_000,
      'the audit trail shows the rules',
    );

    const tried = await t.adminOk(
      'POST',
      `/admin/routines/${routine.id}/webhook/rules/try`,
      { sample: JSON.stringify({ ...OPENED, action: 'closed' }), filter: 'body.action == "closed"' },
      200,
    );
    expect(tried).toEqual({ filter: { result: 'matched' }, payload_schema: { result: 'conforms' } });
    const own = await t.adminOk('POST', `/admin/routines/${routine.id}/webhook/rules/try`, { sample: '{"action": 1}' }, 200);
    expect(own).toMatchObject({
      filter: { result: 'not_matched' },
      payload_schema: {
        result: 'mismatch',
        errors: [
          { instance_path: '', keyword: 'required' },
          { instance_path: '/action', keyword: 'enum' },
        ],
      },
    });
    // Read as the webhook reads deliveries: a bearer webhook's {"data": …} is its payload; headers as given.
    const tryPath = `/admin/routines/${routine.id}/webhook/rules/try`;
    expect(await t.adminOk('POST', tryPath, { sample: JSON.stringify({ data: OPENED }), filter: FILTER }, 200)).toMatchObject({
      filter: { result: 'matched' },
    });
    const withHeaders = { sample: '{}', filter: 'headers["x-event"] == "push"', payload_schema: null, headers: { 'X-Event': 'push' } };
    expect(await t.adminOk('POST', tryPath, withHeaders, 200)).toEqual({ filter: { result: 'matched' }, payload_schema: null });
    expect((await t.admin('POST', tryPath, { ...withHeaders, headers: { 'x-event': 7 } })).json).toMatchObject({
      code: 'validation_failed',
    });
    const invalid = await t.adminOk('POST', `/admin/routines/${routine.id}/webhook/rules/try`, { sample: '{}', filter: 'x ==' }, 200);
    expect(invalid).toMatchObject({ filter: { result: 'invalid', error: expect.stringMatching(/does not parse/) } });
  });
});

describe('routine rules on two ingress replicas', () => {
  const [a, b] = useIngressReplicas({ WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000' });

  it('a filter or schema changed on A takes effect on B at once', async () => {
    const hook = await a.setupWebhook();
    const body = JSON.stringify(OPENED);
    expect((await b.deliver(hook, { body })).status).toBe(202);
    for (let round = 0; round < 5; round++) {
      await a.adminOk('PATCH', `/admin/routines/${hook.routineId}/webhook`, { filter: `body.action == "closed-${round}"` }, 200);
      expect((await b.deliver(hook, { body })).status).toBe(200);
      await a.adminOk('PATCH', `/admin/routines/${hook.routineId}/webhook`, { filter: null, payload_schema: { type: 'array' } }, 200);
      expect((await b.deliver(hook, { body })).status).toBe(400);
      await a.adminOk('PATCH', `/admin/routines/${hook.routineId}/webhook`, { payload_schema: null }, 200);
      expect((await b.deliver(hook, { body })).status).toBe(202);
    }
  });
});
