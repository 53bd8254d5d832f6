import { parse } from 'lossless-json';
import { looksLikeHandshake, MAX_HANDSHAKE_TOKEN_CHARS, queryHandshakeOf, signedHandshakeOf } from './handshake.rules';

describe('queryHandshakeOf — X, Meta and Graph, from the query alone', () => {
  it("reads X's CRC and Meta's subscription check on a GET only", () => {
    expect(queryHandshakeOf('GET', { crcToken: 'abc' })).toEqual({ kind: 'x_crc', scheme: 'x', crcToken: 'abc' });
    expect(queryHandshakeOf('POST', { crcToken: 'abc' })).toBeUndefined();
    const meta = { hubMode: 'subscribe', hubVerifyToken: 'token', hubChallenge: '1158201444' };
    expect(queryHandshakeOf('GET', meta)).toEqual({
      kind: 'meta_subscribe',
      scheme: 'meta',
      verifyToken: 'token',
      challenge: '1158201444',
    });
    expect(queryHandshakeOf('POST', meta)).toBeUndefined();
  });

  it("reads Graph's validationToken on a POST (as Graph sends it) and on a GET", () => {
    for (const method of ['POST', 'GET'] as const) {
      expect(queryHandshakeOf(method, { validationToken: 'Validation: Testing' })).toEqual({
        kind: 'graph_validation',
        scheme: 'microsoft_graph',
        validationToken: 'Validation: Testing',
      });
    }
  });

  it('is no handshake without its members, with Meta in another mode, or with an empty or overlong token', () => {
    expect(queryHandshakeOf('GET', {})).toBeUndefined();
    expect(queryHandshakeOf('GET', { hubMode: 'unsubscribe', hubVerifyToken: 't', hubChallenge: '1' })).toBeUndefined();
    expect(queryHandshakeOf('GET', { hubMode: 'subscribe', hubChallenge: '1' })).toBeUndefined();
    expect(queryHandshakeOf('GET', { crcToken: '' })).toBeUndefined();
    expect(queryHandshakeOf('GET', { validationToken: 'x'.repeat(MAX_HANDSHAKE_TOKEN_CHARS + 1) })).toBeUndefined();
    expect(queryHandshakeOf('GET', { crcToken: 'x'.repeat(MAX_HANDSHAKE_TOKEN_CHARS) })).toMatchObject({ kind: 'x_crc' });
  });
});

describe('signedHandshakeOf — Slack, Zoom, Discord and Twitch, once their signature checked out', () => {
  const json = (text: string): unknown => parse(text);

  it("reads Slack's url_verification (its documented body)", () => {
    const body =
      '{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}';
    expect(signedHandshakeOf('slack', {}, json(body))).toEqual({
      kind: 'slack_url_verification',
      scheme: 'slack',
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    });
    expect(signedHandshakeOf('slack', {}, json('{"type":"event_callback","challenge":"x"}'))).toBeUndefined();
    expect(signedHandshakeOf('slack', {}, json('{"type":"url_verification"}'))).toBeUndefined();
  });

  it("reads Zoom's endpoint.url_validation (its documented body)", () => {
    const body = '{"payload":{"plainToken":"qgg8vlvZRS6UYooatFL8Aw"},"event_ts":1654503849680,"event":"endpoint.url_validation"}';
    expect(signedHandshakeOf('zoom', {}, json(body))).toEqual({
      kind: 'zoom_url_validation',
      scheme: 'zoom',
      plainToken: 'qgg8vlvZRS6UYooatFL8Aw',
    });
    expect(signedHandshakeOf('zoom', {}, json('{"event":"meeting.started","payload":{"plainToken":"x"}}'))).toBeUndefined();
  });

  it("reads Discord's PINGs: an interaction of type 1, a webhook event of type 0; a type-1 event is a delivery", () => {
    expect(signedHandshakeOf('discord', {}, json('{"id":"1","application_id":"2","type":1,"token":"t","version":1}'))).toEqual({
      kind: 'discord_ping',
      scheme: 'discord',
    });
    expect(signedHandshakeOf('discord', {}, json('{"version":1,"application_id":"2","type":0}'))).toEqual({
      kind: 'discord_webhook_ping',
      scheme: 'discord',
    });
    expect(signedHandshakeOf('discord', {}, json('{"version":1,"type":1,"event":{"type":"APPLICATION_AUTHORIZED"}}'))).toBeUndefined();
    expect(signedHandshakeOf('discord', {}, json('{"type":2}'))).toBeUndefined();
    expect(signedHandshakeOf('discord', {}, { type: 1 })).toEqual({ kind: 'discord_ping', scheme: 'discord' });
  });

  it("reads Twitch's webhook_callback_verification from its message type header and the body's challenge", () => {
    const body = json('{"challenge":"pogchamp-kappa-360noscope-vohiyo","subscription":{"type":"channel.follow"}}');
    expect(signedHandshakeOf('twitch', { twitchMessageType: 'webhook_callback_verification' }, body)).toEqual({
      kind: 'twitch_callback_verification',
      scheme: 'twitch',
      challenge: 'pogchamp-kappa-360noscope-vohiyo',
    });
    expect(signedHandshakeOf('twitch', { twitchMessageType: 'notification' }, body)).toBeUndefined();
  });

  it('is never a handshake for the other schemes, nor for a body that is not an object', () => {
    for (const scheme of ['github', 'stripe', 'standard_webhooks', 'x', 'meta', 'microsoft_graph'] as const) {
      expect(signedHandshakeOf(scheme, {}, json('{"type":"url_verification","challenge":"c"}'))).toBeUndefined();
    }
    expect(signedHandshakeOf('slack', {}, 'url_verification')).toBeUndefined();
    expect(signedHandshakeOf('discord', {}, json('[1]'))).toBeUndefined();
  });
});

describe('looksLikeHandshake — what a refused request is recorded as', () => {
  it('reads the raw body (or the Twitch header), never throwing', () => {
    expect(looksLikeHandshake('slack', {}, Buffer.from('{"type":"url_verification","challenge":"c"}'))).toBe(true);
    expect(looksLikeHandshake('slack', {}, Buffer.from('{"type":"url_verification"'))).toBe(false);
    expect(looksLikeHandshake('discord', {}, Buffer.from('{"type":0}'))).toBe(true);
    expect(looksLikeHandshake('twitch', { twitchMessageType: 'webhook_callback_verification' }, Buffer.alloc(0))).toBe(true);
    expect(looksLikeHandshake('github', {}, Buffer.from('{"type":"url_verification","challenge":"c"}'))).toBe(false);
  });
});
