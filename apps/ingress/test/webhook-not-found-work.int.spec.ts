import { ACCOUNT_CATALOG_STREAM, Streams } from '@wts/contracts';
import type { EventStore } from '@wts/event-store';
import { IngressTestApp } from '../../../test/support/ingress-test-app';
import type { WebhookFixture } from '../../../test/support/ingress-admin.client';
import type { HttpResult } from '../../../test/support/ingress-http.client';
import { RecordingEventStore, type RecordedCall } from '../../../test/support/recording-event-store';

const UNKNOWN_ID = 'whk_UnknownUnknownUnknown0';

type Kind = 'unknown_endpoint' | 'disabled_endpoint' | 'wrong_secret' | 'missing_header';
const KINDS: readonly Kind[] = ['unknown_endpoint', 'disabled_endpoint', 'wrong_secret', 'missing_header'];

interface Work {
  readonly calls: readonly RecordedCall[];
  /** The streams whose heads were looked at. */
  readonly looked: readonly string[];
  /** Those of them that do not exist in the store (a lookup that finds nothing is cheaper). */
  readonly absent: readonly string[];
}

/**
 * The four 404s of the public endpoint (unknown endpoint, disabled endpoint, wrong secret, no
 * Authorization header) must do the same work before answering, or their latency tells a caller
 * whether a webhook id exists (issue 10, finding 8; docs/timing.md). Watched from outside with a
 * recording store: every kind asks the store the same thing — one look at the heads of three
 * streams, nothing read — and finds the same streams there: the catalog and a routine's stream on
 * every path. The only stream that may be absent is an unknown id's own webhook stream, which has
 * to be looked at (a webhook enabled through another replica a moment ago is no 404).
 */
describe('every 404 of the public endpoint does the same store work before answering', () => {
  let app: IngressTestApp;
  let recorder: RecordingEventStore;
  let inner: EventStore;
  let hook: WebhookFixture;
  let disabled: WebhookFixture;

  beforeAll(async () => {
    app = await IngressTestApp.start({}, undefined, (store) => {
      inner = store;
      return (recorder = new RecordingEventStore(store));
    });
    hook = await app.setupWebhook();
    disabled = await app.setupWebhook();
    await app.adminOk('POST', `/admin/routines/${disabled.routineId}/webhook/disable`, undefined, 200);
  }, 30_000);

  afterAll(async () => {
    await app?.close();
  });

  const send = (kind: Kind): Promise<HttpResult> => {
    const wrongSecret = `${hook.secret.slice(0, -1)}${hook.secret.endsWith('A') ? 'B' : 'A'}`;
    if (kind === 'unknown_endpoint') return app.deliver({ webhookId: UNKNOWN_ID, secret: hook.secret });
    if (kind === 'disabled_endpoint') return app.deliver(disabled);
    if (kind === 'wrong_secret') return app.deliver({ webhookId: hook.webhookId, secret: wrongSecret });
    return app.deliver(hook, { authorization: null });
  };

  async function workOf(kind: Kind): Promise<Work> {
    recorder.reset();
    expect((await send(kind)).status).toBe(404);
    const calls = [...recorder.calls];
    const looked = calls.flatMap((call) => (call.call === 'streamHeads' ? call.streamIds : []));
    const heads = await inner.streamHeads(looked);
    return { calls, looked, absent: looked.filter((streamId) => (heads.get(streamId) ?? -1n) < 0n) };
  }

  async function workOfEach(): Promise<Record<Kind, Work>> {
    const work: Partial<Record<Kind, Work>> = {};
    for (const kind of KINDS) work[kind] = await workOf(kind);
    return work as Record<Kind, Work>;
  }

  it('asks the store the same on every path: one look at three stream heads, nothing read', async () => {
    const work = await workOfEach();
    for (const kind of KINDS) {
      expect({
        kind,
        calls: work[kind].calls.map((call) => ({ call: call.call, streams: call.call === 'streamHeads' ? call.streamIds.length : 0 })),
      }).toEqual({
        kind,
        calls: [{ call: 'streamHeads', streams: 3 }],
      });
    }
  });

  it('finds the catalog and a routine stream on every path: an unknown id looks at an existing routine, not an absent one', async () => {
    const work = await workOfEach();
    for (const kind of KINDS) {
      const routines = work[kind].looked.filter((streamId) => streamId.startsWith(Streams.routine('')));
      expect({ kind, routines: routines.length, catalog: work[kind].looked.includes(ACCOUNT_CATALOG_STREAM) }).toEqual({
        kind,
        routines: 1,
        catalog: true,
      });
    }
    expect(work.unknown_endpoint.absent).toEqual([Streams.webhook(UNKNOWN_ID)]);
    for (const kind of KINDS.filter((each) => each !== 'unknown_endpoint'))
      expect({ kind, absent: work[kind].absent }).toEqual({ kind, absent: [] });
  });
});
