import type { HandshakeAnswer } from '@wts/application';
import type { Handshake } from '@wts/domain';
import { metaVerifyTokenMatches } from './meta-signature.check';
import { xResponseToken } from './x-signature.check';
import { zoomEncryptedToken } from './zoom-signature.check';

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Each provider's handshake answered exactly as its documentation has it (docs/signed-senders.md,
 * "Handshakes"), `credential` being the webhook's (or a decoy's):
 *
 * - Slack `url_verification`: 200, `text/plain`, the `challenge` (Slack also takes JSON or form).
 * - Zoom `endpoint.url_validation`: 200 JSON `{"plainToken", "encryptedToken"}`, the hex HMAC-SHA256
 *   of `plainToken` under the Secret Token.
 * - Discord PING: interactions (`type` 1) 200 JSON `{"type":1}` (PONG); webhook events (`type` 0) 204.
 * - Twitch `webhook_callback_verification`: 200, `text/plain`, the `challenge` as is.
 * - X CRC: 200 JSON `{"response_token": "sha256=<base64 HMAC-SHA256 of crc_token>"}`.
 * - Meta: 200, `text/plain`, `hub.challenge` — when `hub.verify_token` is the webhook's; undefined otherwise.
 * - Microsoft Graph: 200, `text/plain`, the `validationToken` (URL-decoded, as the query parser gives it).
 */
export function answerHandshake(handshake: Handshake, credential: string): HandshakeAnswer | undefined {
  switch (handshake.kind) {
    case 'slack_url_verification':
      return text(handshake.challenge);
    case 'zoom_url_validation':
      return json({ plainToken: handshake.plainToken, encryptedToken: zoomEncryptedToken(credential, handshake.plainToken) });
    case 'discord_ping':
      return json({ type: 1 });
    case 'discord_webhook_ping':
      return { status: 204, contentType: undefined, body: '' };
    case 'twitch_callback_verification':
      return text(handshake.challenge);
    case 'x_crc':
      return json({ response_token: xResponseToken(credential, handshake.crcToken) });
    case 'meta_subscribe':
      return metaVerifyTokenMatches(credential, handshake.verifyToken) ? text(handshake.challenge) : undefined;
    case 'graph_validation':
      return text(handshake.validationToken);
  }
}

function text(body: string): HandshakeAnswer {
  return { status: 200, contentType: TEXT, body };
}

function json(value: object): HandshakeAnswer {
  return { status: 200, contentType: JSON_TYPE, body: JSON.stringify(value) };
}
