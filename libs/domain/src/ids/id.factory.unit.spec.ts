import {
  ID_PREFIX,
  ID_RANDOM_BYTES,
  deliveryIdForIdempotencyKey,
  idempotencyIndexId,
  derivedEventId,
  idFromBytes,
  isWellFormedId,
  runIdForDelivery,
  timeOrderedId,
  TIME_PREFIX_CHARS,
  type IdKind,
} from './id.factory';

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const KINDS: IdKind[] = ['webhook', 'secret', 'delivery', 'run', 'account', 'routine'];

/** Bytes that exercise every base64url character, including '-' and '_' (0xfb, 0xff). */
function bytes(count: number, fill?: number): Uint8Array {
  const out = new Uint8Array(count);
  for (let i = 0; i < count; i++) out[i] = fill ?? (i * 37 + 0xfb) & 0xff;
  return out;
}

describe('ID_PREFIX', () => {
  it('uses the fixed prefixes', () => {
    expect(ID_PREFIX).toEqual({
      webhook: 'whk_',
      secret: 'whsec_',
      delivery: 'dlv_',
      run: 'run_',
      account: 'acc_',
      routine: 'rtn_',
      apiKey: 'key_',
      apiKeySecret: 'wtk_',
      signingSecret: 'sgs_',
      erasure: 'era_',
    });
  });

  it('asks for at least 16 random bytes for webhook ids and 32 for secrets', () => {
    expect(ID_RANDOM_BYTES.webhook).toBeGreaterThanOrEqual(16);
    expect(ID_RANDOM_BYTES.secret).toBe(32);
    expect(ID_RANDOM_BYTES.apiKeySecret).toBe(32);
  });
});

describe('idFromBytes', () => {
  it('makes a webhook id: whk_ and 16 bytes as 22 base64url characters', () => {
    const id = idFromBytes('webhook', bytes(16));
    expect(id.startsWith('whk_')).toBe(true);
    expect(id.slice(4)).toHaveLength(22);
    expect(id.slice(4)).toMatch(BASE64URL);
  });

  it('makes a secret: whsec_ and 32 bytes as 43 base64url characters', () => {
    const secret = idFromBytes('secret', bytes(32));
    expect(secret.startsWith('whsec_')).toBe(true);
    expect(secret.slice(6)).toHaveLength(43);
    expect(secret.slice(6)).toMatch(BASE64URL);
  });

  it('uses base64url without padding: bytes that would need + / = in base64 do not show them', () => {
    const id = idFromBytes('webhook', bytes(16, 0xff));
    expect(id).toBe(`whk_${'_'.repeat(21)}w`);
    const mixed = idFromBytes('secret', bytes(32, 0xfb));
    expect(mixed).not.toMatch(/[+/=]/);
    expect(mixed.slice(6)).toMatch(BASE64URL);
    expect(mixed).toContain('-');
  });

  it('encodes the bytes losslessly', () => {
    const raw = bytes(16);
    const id = idFromBytes('run', raw);
    expect(Buffer.from(id.slice(4), 'base64url').equals(Buffer.from(raw))).toBe(true);
  });

  it('accepts more than the minimum of bytes', () => {
    expect(idFromBytes('webhook', bytes(24)).slice(4)).toHaveLength(32);
  });

  it.each(KINDS)('refuses fewer than the minimum of random bytes for %s ids', (kind) => {
    expect(() => idFromBytes(kind, bytes(ID_RANDOM_BYTES[kind] - 1))).toThrow();
  });

  it.each(KINDS)('gives %s ids its prefix and a well-formed body', (kind) => {
    const id = idFromBytes(kind, bytes(ID_RANDOM_BYTES[kind]));
    expect(id.startsWith(ID_PREFIX[kind])).toBe(true);
    expect(isWellFormedId(kind, id)).toBe(true);
  });
});

describe('isWellFormedId', () => {
  const webhookId = idFromBytes('webhook', bytes(16));

  it('accepts an id of its kind', () => {
    expect(isWellFormedId('webhook', webhookId)).toBe(true);
  });

  it('refuses an id of another kind', () => {
    expect(isWellFormedId('delivery', webhookId)).toBe(false);
    expect(isWellFormedId('webhook', idFromBytes('run', bytes(16)))).toBe(false);
  });

  it.each([
    ['the bare prefix', 'whk_'],
    ['a body shorter than 16 characters', `whk_${'A'.repeat(15)}`],
    ['a body longer than 128 characters', `whk_${'A'.repeat(129)}`],
    ['a padded body', `whk_${'A'.repeat(20)}==`],
    ['a body with +', `whk_${'A'.repeat(21)}+`],
    ['a body with /', `whk_${'A'.repeat(21)}/`],
    ['a body with a dot', `whk_${'A'.repeat(21)}.`],
    ['a body with a space', `whk_${'A'.repeat(21)} `],
    ['an upper-case prefix', `WHK_${'A'.repeat(22)}`],
    ['no prefix', 'A'.repeat(26)],
    ['the empty string', ''],
  ])('refuses %s', (_case, value) => {
    expect(isWellFormedId('webhook', value)).toBe(false);
  });

  it('accepts bodies of exactly 16 and 128 characters', () => {
    expect(isWellFormedId('webhook', `whk_${'A'.repeat(16)}`)).toBe(true);
    expect(isWellFormedId('webhook', `whk_${'-_'.repeat(64)}`)).toBe(true);
  });
});

describe('deliveryIdForIdempotencyKey', () => {
  const WEBHOOK = 'whk_AAAAAAAAAAAAAAAAAAAAAA';

  it('is a well-formed delivery id', () => {
    const id = deliveryIdForIdempotencyKey(WEBHOOK, 'order-42', 0);
    expect(id.startsWith('dlv_')).toBe(true);
    expect(isWellFormedId('delivery', id)).toBe(true);
  });

  it('is deterministic', () => {
    expect(deliveryIdForIdempotencyKey(WEBHOOK, 'order-42', 0)).toBe(deliveryIdForIdempotencyKey(WEBHOOK, 'order-42', 0));
  });

  it('differs per webhook (keys are scoped to the webhook), per key and per generation', () => {
    const ids = [
      deliveryIdForIdempotencyKey(WEBHOOK, 'order-42', 0),
      deliveryIdForIdempotencyKey('whk_BBBBBBBBBBBBBBBBBBBBBB', 'order-42', 0),
      deliveryIdForIdempotencyKey(WEBHOOK, 'order-43', 0),
      deliveryIdForIdempotencyKey(WEBHOOK, 'order-42', 1),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('does not confuse how the parts are split', () => {
    expect(deliveryIdForIdempotencyKey('whk_a', 'bc', 0)).not.toBe(deliveryIdForIdempotencyKey('whk_ab', 'c', 0));
    expect(deliveryIdForIdempotencyKey(WEBHOOK, 'k1', 1)).not.toBe(deliveryIdForIdempotencyKey(WEBHOOK, 'k', 11));
  });

  it('is case-sensitive in the key', () => {
    expect(deliveryIdForIdempotencyKey(WEBHOOK, 'Order', 0)).not.toBe(deliveryIdForIdempotencyKey(WEBHOOK, 'order', 0));
  });
});

describe('timeOrderedId', () => {
  const AT = Date.parse('2026-11-24T10:00:00.000Z');

  it('is a well-formed id of its kind carrying the time in its first characters', () => {
    const id = timeOrderedId('delivery', AT, bytes(16));
    expect(isWellFormedId('delivery', id)).toBe(true);
    const body = Buffer.from(id.slice(ID_PREFIX.delivery.length), 'base64url');
    expect(body.length).toBe(22);
    expect(body.readUIntBE(0, 6)).toBe(AT);
    expect(Buffer.from(body.subarray(6))).toEqual(Buffer.from(bytes(16)));
  });

  it('sorts by time: ids made in later milliseconds compare greater, whatever their random part', () => {
    const times = [0, 1, 255, 256, AT - 1, AT, AT + 1, AT + 1000, 2 ** 48 - 1];
    const ids = times.map((t, i) => timeOrderedId('delivery', t, bytes(16, (255 - i * 17) & 0xff)));
    // base64url's alphabet is not in ASCII order, so compare the decoded bytes
    const decoded = ids.map((id) => Buffer.from(id.slice(ID_PREFIX.delivery.length), 'base64url'));
    for (let i = 1; i < decoded.length; i++) expect(Buffer.compare(decoded[i - 1].subarray(0, 6), decoded[i].subarray(0, 6))).toBe(-1);
  });

  it('gives ids of one millisecond the same leading characters and different bodies', () => {
    const a = timeOrderedId('delivery', AT, bytes(16, 1));
    const b = timeOrderedId('delivery', AT, bytes(16, 2));
    expect(a.slice(0, ID_PREFIX.delivery.length + TIME_PREFIX_CHARS)).toBe(b.slice(0, ID_PREFIX.delivery.length + TIME_PREFIX_CHARS));
    expect(a).not.toBe(b);
  });

  it('refuses too few random bytes and times outside 48 bits', () => {
    expect(() => timeOrderedId('delivery', AT, bytes(15))).toThrow(/at least 16 random bytes/);
    expect(() => timeOrderedId('secret', AT, bytes(16))).toThrow(/at least 32 random bytes/);
    for (const bad of [-1, 2 ** 48, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => timeOrderedId('delivery', bad, bytes(16))).toThrow(/not a millisecond time/);
    }
  });
});

describe('runIdForDelivery', () => {
  it('starts with the time characters of a time-ordered delivery id, so runs made together sort together', () => {
    const delivery = timeOrderedId('delivery', Date.parse('2026-11-24T10:00:00.000Z'), bytes(16));
    const run = runIdForDelivery(delivery);
    expect(isWellFormedId('run', run)).toBe(true);
    expect(run.slice(4, 4 + TIME_PREFIX_CHARS)).toBe(delivery.slice(4, 4 + TIME_PREFIX_CHARS));
    expect(runIdForDelivery(timeOrderedId('delivery', Date.parse('2026-11-24T10:00:00.000Z'), bytes(16, 9)))).not.toBe(run);
  });

  it('takes no time part from a delivery id that is not base64url', () => {
    expect(runIdForDelivery('dlv_not base64!')).toMatch(/^run_[A-Za-z0-9_-]{24}$/);
  });

  it('is a well-formed run id, deterministic and distinct per delivery', () => {
    const a = runIdForDelivery('dlv_AAAAAAAAAAAAAAAAAAAAAA');
    expect(a.startsWith('run_')).toBe(true);
    expect(isWellFormedId('run', a)).toBe(true);
    expect(runIdForDelivery('dlv_AAAAAAAAAAAAAAAAAAAAAA')).toBe(a);
    expect(runIdForDelivery('dlv_BBBBBBBBBBBBBBBBBBBBBB')).not.toBe(a);
  });

  it('does not share its body with the delivery id it derives from', () => {
    const delivery = deliveryIdForIdempotencyKey('whk_AAAAAAAAAAAAAAAAAAAAAA', 'k', 0);
    expect(runIdForDelivery(delivery).slice(4)).not.toBe(delivery.slice(4));
  });
});

describe('derivedEventId', () => {
  it('is a UUID version 8 string with the RFC 9562 variant', () => {
    for (const parts of [['a'], ['a', 'b'], [], ['dlv_x', 'RunCreated'], ['ü', '']]) {
      expect(derivedEventId(...parts)).toMatch(UUID_V8);
    }
  });

  it('is deterministic', () => {
    expect(derivedEventId('run_1', 'RunCreated')).toBe(derivedEventId('run_1', 'RunCreated'));
  });

  it('is distinct per input, including how the input is split', () => {
    const ids = [
      derivedEventId('run_1', 'RunCreated'),
      derivedEventId('run_2', 'RunCreated'),
      derivedEventId('run_1', 'DispatchParked'),
      derivedEventId('run_1RunCreated'),
      derivedEventId('run_1', 'Run', 'Created'),
      derivedEventId('RunCreated', 'run_1'),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('idempotencyIndexId', () => {
  it('is one stable, base64url id per webhook and key, never the key itself', () => {
    const id = idempotencyIndexId('whk_AAAAAAAAAAAAAAAAAAAAAA', 'order-42');
    expect(id).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(id).not.toContain('order-42');
    expect(idempotencyIndexId('whk_AAAAAAAAAAAAAAAAAAAAAA', 'order-42')).toBe(id);
    expect(idempotencyIndexId('whk_BBBBBBBBBBBBBBBBBBBBBB', 'order-42')).not.toBe(id);
    expect(idempotencyIndexId('whk_a', 'bc')).not.toBe(idempotencyIndexId('whk_ab', 'c'));
  });
});
