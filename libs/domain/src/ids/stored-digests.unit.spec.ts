import { bytesDigest, requestDigest } from '../delivery/request.digest';
import { deliveryIdForIdempotencyKey, derivedEventId, idempotencyIndexId, runIdForDelivery } from './id.factory';
import { digestSecret } from './secret.digest';

/**
 * Ids derived from digests and digests compared with stored ones are part of what is stored: a run
 * id, an idempotency key's delivery id or a request digest computed differently tomorrow would
 * make a repeat a new delivery. These values were written by the streaming implementation
 * (createHash().update() per part, before 2026-11-29), non-ASCII text included; the one-shot
 * hashes that replaced it must give them byte for byte.
 */
describe('stored digests and derived ids', () => {
  it('derives the same run, delivery, index and event ids', () => {
    expect(runIdForDelivery('dlv_AaInQPGchN-zXje_AhGel8OdZEZ_DA')).toBe('run_AaInQPGcZNnaC-q-vUQ844pwz-Lvcwzb');
    expect(runIdForDelivery('dlv_é✓')).toBe('run_OX6XMvh3xNeoybTiYiN2lXQW');
    expect(deliveryIdForIdempotencyKey('whk_QPaGAeNGRv4TLnr_jBwY1Q', 'order-42 ✓ é', 3)).toBe('dlv_OuYz5TGXIvRVO6OZrQUJLlAI');
    expect(idempotencyIndexId('whk_QPaGAeNGRv4TLnr_jBwY1Q', 'order-42 ✓ é')).toBe('YCRz7vlvsb_DTPSqEUh2WIVy');
    expect(derivedEventId('RunCreated', 'dlv_x', 'é✓')).toBe('e263c1a9-4cc4-88f6-99a9-95854d7d39fe');
  });

  it('digests secrets as before', () => {
    expect(digestSecret('whsec_ünïcode✓')).toBe('e9323ce219358dd4feba1dfab20c7383e8b4258dcda56dd3ea1d6c477b040347');
  });

  it('digests requests as before: over the bytes (with and without an account header) and over the canonical JSON', () => {
    const json = { mediaType: 'application/json', charset: 'utf-8', accountHeader: 'ops@example.com', bytes: Buffer.from('{"a":"é"}') };
    expect(bytesDigest(json)).toBe('2dc2a9de73638b1270ada4fbe793b67bf9e1f585822cf6b32575c78b7ab3e220');
    const text = { mediaType: 'text/plain', charset: 'iso-8859-1', accountHeader: undefined, bytes: Buffer.from([0xe9, 0x00, 0xff]) };
    expect(bytesDigest(text)).toBe('81de2fc0521fd65e15ed626268cf71896484a0389cd093089d3e0f317c82d007');
    const canonical = {
      mediaType: 'application/json',
      charset: 'utf-8',
      accountHeader: undefined,
      bytes: Buffer.from('{"b":1,"a":"é"}'),
      json: { b: 1, a: 'é' },
    };
    expect(requestDigest(canonical)).toBe('jcs:86f49967c9740ee53aef4a343858c080132e9e7d89994284d9905117822660da');
  });
});
