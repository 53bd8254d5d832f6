// Per signed scheme: the texts of the rotate form (the provider's new credential is pasted) and of
// the test delivery section (the page cannot sign for a provider). Data only: verification.js uses it.
import { HANDSHAKE_SCHEMES, PROVIDER_NAMES, SECRET_FIELD } from './sender-schemes.js';

/** Rotating a webhook whose secret is the provider's: the new one is pasted (every provider's scheme). */
export const ROTATE_FORM = {
  github: {
    title: 'Rotate the GitHub webhook secret',
    hint:
      'Paste a new secret here, then set the same one in the GitHub webhook. The current secret stops working here at once: ' +
      'deliveries GitHub still signs with it get 404 until GitHub has the new one.',
    label: 'New GitHub webhook secret',
    help: '16 characters or more. Kept encrypted, never shown again.',
    missing: 'Paste the new GitHub webhook secret.',
  },
  stripe: {
    title: 'Rotate the Stripe signing secret',
    hint:
      "Roll the endpoint's signing secret in Stripe first (Developers → Webhooks → the endpoint → Roll secret), then paste the new one here. " +
      'From then on only the new secret is accepted here; while Stripe still signs with both, no event is lost.',
    label: 'New Stripe signing secret',
    help: "The endpoint's new whsec_… value. Kept encrypted, never shown again.",
    missing: "Paste the endpoint's new Stripe signing secret (whsec_…).",
  },
  shopify: {
    title: 'Rotate the Shopify client secret',
    hint:
      "Rotate the app's client secret in Shopify first, then paste the new one here. Shopify can take up to an hour to sign with it: " +
      'deliveries still signed with the old one get 404 here, and Shopify retries them.',
    label: 'New Shopify client secret',
    help: "The app's new client secret. Kept encrypted, never shown again.",
    missing: "Paste the app's new Shopify client secret.",
  },
  gitlab: {
    title: 'Rotate the GitLab secret token',
    hint:
      'Paste a new token here, then set the same one as the Secret token of the GitLab webhook. The current token stops working here at once: ' +
      'deliveries GitLab still sends with it get 404 until GitLab has the new one.',
    label: 'New GitLab secret token',
    help: '16 characters or more. Kept encrypted, never shown again.',
    missing: 'Paste the new GitLab secret token.',
  },
  linear: {
    title: 'Rotate the Linear signing secret',
    hint: "Rotate the webhook's signing secret in Linear first (the webhook's page), then paste the new one here. Events signed with the old one get 404 here.",
    label: 'New Linear signing secret',
    help: 'The new lin_wh_… value. Kept encrypted, never shown again.',
    missing: "Paste the Linear webhook's new signing secret (lin_wh_…).",
  },
  sentry: {
    title: 'Rotate the Sentry client secret',
    hint: "Rotate the integration's client secret in Sentry first (Settings → Developer Settings → the integration), then paste the new one here.",
    label: 'New Sentry client secret',
    help: '64 hex digits. Kept encrypted, never shown again.',
    missing: "Paste the integration's new Sentry client secret.",
  },
  pagerduty: {
    title: 'Rotate the PagerDuty signing secret',
    hint: 'Once PagerDuty has given the subscription a new secret, paste it here. From then on only the new secret is accepted here; while PagerDuty signs with both, no event is lost.',
    label: 'New PagerDuty signing secret',
    help: 'Kept encrypted, never shown again.',
    missing: "Paste the subscription's new PagerDuty signing secret.",
  },
  zendesk: {
    title: 'Rotate the Zendesk signing secret',
    hint: "Reset the webhook's signing secret in Zendesk first, then paste the new one here. Requests signed with the old one get 404 here.",
    label: 'New Zendesk signing secret',
    help: 'Kept encrypted, never shown again.',
    missing: "Paste the Zendesk webhook's new signing secret.",
  },
  svix: {
    title: 'Rotate the Svix signing secret',
    hint:
      "Rotate the endpoint's secret in the sender's portal first, then paste the new one here. From then on only the new secret is accepted here; " +
      'while the sender signs with both, no message is lost.',
    label: 'New Svix signing secret',
    help: "The endpoint's new whsec_… value. Kept encrypted, never shown again.",
    missing: "Paste the endpoint's new signing secret (whsec_…).",
  },
  ...Object.fromEntries(
    HANDSHAKE_SCHEMES.map((scheme) => [
      scheme,
      {
        title: `Rotate the ${PROVIDER_NAMES[scheme]} credential`,
        hint:
          `Paste the new ${SECRET_FIELD[scheme].label.replace(/^\S+ /, '')} here, then set the same one in ${PROVIDER_NAMES[scheme]}. ` +
          'The current one stops working here at once: requests still proved with it get the one refusal until the provider has the new one.',
        label: `New ${SECRET_FIELD[scheme].label}`,
        help: SECRET_FIELD[scheme].help,
        missing: SECRET_FIELD[scheme].missing,
        field: SECRET_FIELD[scheme].field ?? 'secret',
        verifyToken: scheme === 'meta',
      },
    ]),
  ),
};

/** The test delivery, for a signed webhook: the page never holds the secret after it is shown, so it cannot sign. */
export const TEST_ELSEWHERE = {
  ...Object.fromEntries(
    HANDSHAKE_SCHEMES.map((scheme) => [
      scheme,
      `Send a test from ${PROVIDER_NAMES[scheme]} (its handshake first: the last one shows above): the page cannot prove requests for ${PROVIDER_NAMES[scheme]}.`,
    ]),
  ),
  standard_webhooks: 'Send a test from your sender: the page does not keep the signing secret, so it cannot sign a request for it.',
  github:
    'Send a test from GitHub (the webhook\'s "Recent Deliveries" → Redeliver, or any event you chose): the page cannot sign requests for GitHub.',
  stripe:
    'Send a test event from Stripe (for instance with the Stripe CLI: stripe trigger payment_intent.succeeded): the page cannot sign requests for Stripe.',
  shopify:
    'Send a test from Shopify (the Shopify CLI: shopify app webhook trigger, or a real event in a development store): the page cannot sign requests for Shopify.',
  gitlab: "Send a test from GitLab (the webhook's Test button in Settings → Webhooks): the page does not keep the secret token.",
  linear: 'Send a test from Linear (make a change the webhook listens to): the page cannot sign requests for Linear.',
  sentry: 'Send a test from Sentry (an issue or alert the integration is subscribed to): the page cannot sign requests for Sentry.',
  pagerduty: "Send a test from PagerDuty (the subscription's Send Test Event): the page cannot sign requests for PagerDuty.",
  zendesk: "Send a test from Zendesk (the webhook's Test webhook in Admin Center): the page cannot sign requests for Zendesk.",
  svix: "Send a test from the sender (its Svix portal's Testing tab): the page cannot sign requests for it.",
};
