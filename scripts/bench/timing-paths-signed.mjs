/* global Buffer */
/**
 * The signed kinds of timing-paths.mjs (`--scheme`): the same family timing.mjs times over HTTP
 * (timing-signed.mjs), as TriggerWebhookUseCase commands — each built, and signed with the time
 * now, before its timed call — with the ~1 KiB body already read.
 */
import { eventBodyFor, nowSeconds, SIGNED_SCHEMES } from './signers.mjs';
import { SIGNED_BODY_BYTES, enableSigned, signedKinds, signedPlan, signer } from './timing-signed.mjs';

const PATH_PREFIX = '/workflow-webhooks/';

/**
 * { [kind]: () => command } for `scheme`. `setUp(label, verification)` enables a webhook
 * ({ webhookId, routineId, secret }), `disable(routineId)` disables one, `bearer` is a bearer webhook.
 */
export async function signedCommands(scheme, { setUp, disable, bearer }) {
  if (!SIGNED_SCHEMES.includes(scheme)) throw new Error(`--scheme: one of ${SIGNED_SCHEMES.join(', ')}`);
  const withPath = (hook) => ({ ...hook, path: `${PATH_PREFIX}${hook.webhookId}` });
  const hooks = { bearer: withPath(bearer) };
  for (const each of SIGNED_SCHEMES) {
    hooks[each] = withPath(await enableSigned(setUp, `paths-${each}`, each));
    hooks[`${each}_disabled`] = withPath(await enableSigned(setUp, `paths-${each}-off`, each));
    await disable(hooks[`${each}_disabled`].routineId);
  }
  const plan = signedPlan(scheme, hooks);
  const signed = signer(scheme, eventBodyFor(scheme, SIGNED_BODY_BYTES));
  const command = (kind) => {
    const { headers, body } = signed(plan[kind].secret, nowSeconds() - plan[kind].age);
    const bytes = Buffer.from(body);
    return {
      webhookId: plan[kind].path.slice(PATH_PREFIX.length),
      authorization: undefined,
      contentType: headers['content-type'],
      accountHeader: undefined,
      idempotencyKey: undefined,
      traceparent: undefined,
      sourceAddress: '127.0.0.1',
      signature: {
        webhookId: headers['webhook-id'],
        webhookTimestamp: headers['webhook-timestamp'],
        webhookSignature: headers['webhook-signature'],
        hubSignature256: headers['x-hub-signature-256'],
        githubDelivery: headers['x-github-delivery'],
        githubEvent: headers['x-github-event'],
        stripeSignature: headers['stripe-signature'],
        shopifyHmacSha256: headers['x-shopify-hmac-sha256'],
        shopifyEventId: headers['x-shopify-event-id'],
        shopifyTopic: headers['x-shopify-topic'],
        gitlabToken: headers['x-gitlab-token'],
        gitlabIdempotencyKey: headers['idempotency-key'],
        linearSignature: headers['linear-signature'],
        linearDelivery: headers['linear-delivery'],
        sentryHookSignature: headers['sentry-hook-signature'],
        sentryRequestId: headers['request-id'],
        sentryHookResource: headers['sentry-hook-resource'],
        pagerdutySignature: headers['x-pagerduty-signature'],
        zendeskWebhookSignature: headers['x-zendesk-webhook-signature'],
        zendeskWebhookSignatureTimestamp: headers['x-zendesk-webhook-signature-timestamp'],
        zendeskInvocationId: headers['x-zendesk-webhook-invocation-id'],
        svixId: headers['svix-id'],
        svixTimestamp: headers['svix-timestamp'],
        svixSignature: headers['svix-signature'],
        slackSignature: headers['x-slack-signature'],
        slackTimestamp: headers['x-slack-request-timestamp'],
        zoomSignature: headers['x-zm-signature'],
        zoomTimestamp: headers['x-zm-request-timestamp'],
        discordSignature: headers['x-signature-ed25519'],
        discordTimestamp: headers['x-signature-timestamp'],
        twitchSignature: headers['twitch-eventsub-message-signature'],
        twitchMessageId: headers['twitch-eventsub-message-id'],
        twitchTimestamp: headers['twitch-eventsub-message-timestamp'],
        twitchMessageType: headers['twitch-eventsub-message-type'],
        xSignature: headers['x-twitter-webhooks-signature'],
      },
      readBody: async () => ({ kind: 'read', bytes }),
    };
  };
  return Object.fromEntries(signedKinds(scheme).map((kind) => [kind, () => command(kind)]));
}
