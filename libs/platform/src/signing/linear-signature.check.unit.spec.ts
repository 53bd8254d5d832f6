import type { SignatureVerdict } from '@wts/application';

import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  expectDecoyInProviderForm,
  headerCheck,
  MALFORMED,
  MISMATCH,
  MISSING,
  NOT_UTF8,
  NOW_MS,
  OUTSIDE,
  tampered,
  TOLERANCE,
  VALID,
} from './testing/signature-check.fixtures';

const secret = 'lin_wh_' + randomBytes(24).toString('base64url').replace(/[-_]/g, 'a');
const REFERENCE = join(__dirname, '../../../../test/support/linear-webhook.script.mjs');

const payloadAt = (webhookTimestamp: unknown, extra: Record<string, unknown> = {}): Buffer =>
  Buffer.from(
    JSON.stringify({ action: 'create', type: 'Issue', data: { id: 'a1b2', title: 'Zoë 🎉' }, webhookTimestamp, ...extra }),
    'utf8',
  );
const BODY = payloadAt(NOW_MS);
const hexOf = (key: string, body: Buffer | string): string => createHmac('sha256', key).update(body).digest('hex');
const check = headerCheck('linear', 'linearSignature', BODY, secret);

interface ReferenceCase {
  readonly secret: string;
  readonly body: Buffer;
  readonly signature: string;
  readonly nowMs: number;
}

/** `@linear/sdk`'s LinearWebhookClient.parseData on each case, in a child Node process (the SDK is ESM-only). */
function libraryVerdicts(cases: readonly ReferenceCase[]): boolean[] {
  const input = JSON.stringify(cases.map((each) => ({ ...each, body: each.body.toString('base64') })));
  return JSON.parse(execFileSync(process.execPath, [REFERENCE], { input, encoding: 'utf8' })) as boolean[];
}

describe('ProviderSignatureVerifier: Linear (@linear/sdk)', () => {
  it("given deliveries signed as Linear signs, right or wrong, at times inside and outside Linear's minute, then valid exactly when the SDK takes them (judged with a tolerance of 60 s)", async () => {
    const cases = fc
      .sample(
        fc.record({
          key: fc.stringMatching(/^lin_wh_[A-Za-z0-9]{16,48}$/),
          text: fc.string({ unit: 'grapheme', maxLength: 300 }),
          skewMs: fc.integer({ min: -90_000, max: 90_000 }),
          kind: fc.constantFrom('right', 'other_secret', 'other_body'),
        }),
        { numRuns: 120, seed: 32 },
      )
      .map(({ key, text, skewMs, kind }) => {
        const body = payloadAt(NOW_MS + skewMs, { note: text });
        const signature =
          kind === 'right'
            ? hexOf(key, body)
            : kind === 'other_secret'
              ? hexOf(`${key}x`, body)
              : hexOf(key, Buffer.concat([body, Buffer.from(' ')]));
        return { secret: key, body, signature, nowMs: NOW_MS, kind, skewMs };
      });
    const library = libraryVerdicts(cases);
    for (const [index, each] of cases.entries()) {
      const verdict = await check(each.signature, each.body, each.secret, each.nowMs, 60);
      expect({ index, valid: verdict.valid }).toEqual({ index, valid: library[index] });
      expect(verdict.valid).toBe(each.kind === 'right' && Math.abs(each.skewMs) <= 60_000);
    }
    expect(library.filter(Boolean).length).toBeGreaterThan(10);
  });

  it('given a delivery signed as Linear signs, then it is valid', async () => {
    await expect(check(hexOf(secret, BODY))).resolves.toEqual(VALID);
  });

  it('given the body with one byte changed, a wrong secret, or the old secret after a rotation, then it is a mismatch', async () => {
    const signature = hexOf(secret, BODY);
    await expect(check(signature, tampered(BODY))).resolves.toEqual(MISMATCH);
    await expect(check(signature, BODY, 'lin_wh_' + randomBytes(24).toString('hex'))).resolves.toEqual(MISMATCH);
    await expect(check(hexOf('lin_wh_' + randomBytes(24).toString('hex'), BODY))).resolves.toEqual(MISMATCH);
    // Another webhookTimestamp is another body: a signature cannot be moved to a fresher time.
    await expect(check(signature, payloadAt(NOW_MS + 1))).resolves.toEqual(MISMATCH);
  });

  it("given webhookTimestamp (the body's, in milliseconds) at and beyond the tolerance both ways, then just inside is valid and just outside refused", async () => {
    const at = (ms: number, tolerance = TOLERANCE): Promise<SignatureVerdict> => {
      const body = payloadAt(ms);
      return check(hexOf(secret, body), body, secret, NOW_MS, tolerance);
    };
    await expect(at(NOW_MS - TOLERANCE * 1000)).resolves.toEqual(VALID);
    await expect(at(NOW_MS + TOLERANCE * 1000)).resolves.toEqual(VALID);
    await expect(at(NOW_MS - TOLERANCE * 1000 - 1)).resolves.toEqual(OUTSIDE);
    await expect(at(NOW_MS + TOLERANCE * 1000 + 1)).resolves.toEqual(OUTSIDE);
    await expect(at(Math.floor(NOW_MS / 1000))).resolves.toEqual(OUTSIDE);
    await expect(at(NOW_MS, 0)).resolves.toEqual(VALID);
    await expect(at(NOW_MS - 1, 0)).resolves.toEqual(OUTSIDE);
  });

  it('given no Linear-Signature, or a body without webhookTimestamp (or not a JSON object), then missing_signature', async () => {
    await expect(check(undefined)).resolves.toEqual(MISSING);
    for (const body of [payloadAt(undefined), payloadAt(null), Buffer.from('[1,2]'), Buffer.from('not json'), Buffer.from('"x"')]) {
      await expect(check(hexOf(secret, body), body)).resolves.toEqual(MISSING);
    }
  });

  it('given a signature not 64 lowercase hex digits, or a webhookTimestamp not whole milliseconds, then malformed_signature', async () => {
    const signature = hexOf(secret, BODY);
    for (const header of [
      '',
      signature.toUpperCase(),
      signature.slice(1),
      `${signature}0`,
      `sha256=${signature}`,
      ` ${signature}`,
      'x'.repeat(5000),
    ]) {
      await expect(check(header)).resolves.toEqual(MALFORMED);
    }
    for (const stamp of [String(NOW_MS), NOW_MS + 0.5, -1, 1e300, true, { ms: NOW_MS }]) {
      const body = payloadAt(stamp);
      await expect(check(hexOf(secret, body), body)).resolves.toEqual(MALFORMED);
    }
  });

  it('given duplicate webhookTimestamp members, then the last is the one judged, as JSON.parse in Linear’s client reads it', async () => {
    const body = Buffer.from(`{"type":"Issue","webhookTimestamp":${NOW_MS - 3_600_000},"webhookTimestamp":${NOW_MS}}`);
    await expect(check(hexOf(secret, body), body)).resolves.toEqual(VALID);
    expect(libraryVerdicts([{ secret, body, signature: hexOf(secret, body), nowMs: NOW_MS }])).toEqual([true]);
  });

  it('given a body that is not UTF-8, then no signed time is read from it (missing), or with one, a mismatch even under its own HMAC', async () => {
    await expect(check(hexOf(secret, NOT_UTF8), NOT_UTF8)).resolves.toEqual(MISSING);
    const withTime = Buffer.concat([payloadAt(NOW_MS).subarray(0, -1), Buffer.from(',"x":"\xff"}', 'latin1')]);
    await expect(check(hexOf(secret, withTime), withTime)).resolves.toEqual(MISMATCH);
  });

  it("given the decoy, then it is a lin_wh_ secret in Linear's form, and a valid delivery is a mismatch against it", async () => {
    await expectDecoyInProviderForm('linear', /^lin_wh_[A-Za-z0-9]{44}$/, secret, (key, decoy) => check(hexOf(key, BODY), BODY, decoy));
  });
});
