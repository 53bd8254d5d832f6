import { standardWebhooksCheck, standardWebhooksTakes } from './standard-webhooks-signature.check';

/** Svix signs with a `whsec_<base64>` secret, as the standard does: the same form is taken. */
export const svixTakes = standardWebhooksTakes;

/**
 * Svix: the Standard Webhooks signature (Svix wrote the standard) under its own header names,
 * `svix-id`, `svix-timestamp` and `svix-signature` — the same check, only the names differ. Tests
 * prove the verdicts are the `svix` library's (`Webhook.verify`, `Webhook.sign`).
 */
export const checkSvix = standardWebhooksCheck({ id: 'svixId', timestamp: 'svixTimestamp', signature: 'svixSignature' });
