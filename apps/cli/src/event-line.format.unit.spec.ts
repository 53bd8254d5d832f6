import type { RecordedEvent } from '@wts/event-store';
import { formatEventLine } from './event-line.format';

const recorded = (type: string, data: unknown): RecordedEvent => ({
  id: '00000000-0000-4000-8000-000000000001',
  streamId: 'signing_secret-whk_AAAAAAAAAAAAAAAAAAAAAA',
  revision: 0n,
  position: { commit: 1n, prepare: 1n },
  type,
  data,
  metadata: {},
  createdAt: new Date('2026-11-25T00:00:00.000Z'),
});

describe('formatEventLine', () => {
  it("never prints a signing secret's ciphertext, only the key it is sealed under", () => {
    const ciphertext = 'Q2lwaGVydGV4dE9mQVNpZ25pbmdTZWNyZXQ';
    const line = formatEventLine(
      recorded('SigningSecretSealed', {
        webhookId: 'whk_AAAAAAAAAAAAAAAAAAAAAA',
        secretId: 'sgs_BBBBBBBBBBBBBBBBBBBBBB',
        sealed: { keyId: 'k0123456789abcdef', iv: 'aXZpdml2aXZpdml2', ciphertext, tag: 'dGFndGFndGFndGFndGFn' },
        sealedAt: '2026-11-25T00:00:00.000Z',
      }),
    );
    expect(line).toContain('"sealed":"<sealed under k0123456789abcdef>"');
    expect(line).not.toContain(ciphertext);
    expect(line).not.toContain('aXZpdml2aXZpdml2');
  });

  it('prints a secret-looking field as redacted and a digest shortened', () => {
    const line = formatEventLine(recorded('SecretRotated', { webhookId: 'whk_A', secretDigest: 'a'.repeat(64), token: 'tok' }));
    expect(line).toContain(`"secretDigest":"${'a'.repeat(12)}…"`);
    expect(line).toContain('"token":"<redacted>"');
  });
});
