import * as crypto from 'node:crypto';
import { checkGitlab } from './gitlab-signature.check';
import { delivery, headerCheck, MALFORMED, MISMATCH, MISSING, tampered, VALID } from './testing/signature-check.fixtures';
import { itPassesTheSharedCases, type SignedSchemeCase } from './testing/signature-check.suite';

const secret = `gitlab-token-${crypto.randomBytes(12).toString('hex')}`;
const BODY = Buffer.from('{"object_kind":"push","ref":"refs/heads/main","user_name":"Zoë"}', 'utf8');
const check = headerCheck('gitlab', 'gitlabToken', BODY, secret);
/** GitLab signs nothing: what it sends is the token itself. */
const gitlab: SignedSchemeCase = { scheme: 'gitlab', secret, body: BODY, signatureOf: (token) => token, judge: check };

describe('ProviderSignatureVerifier: GitLab (X-Gitlab-Token)', () => {
  it('given the secret token as GitLab sends it, then it is valid', async () => {
    await expect(check(secret)).resolves.toEqual(VALID);
  });

  it('given a wrong token — another one, a prefix of it, it and more, another case — then it is a mismatch', async () => {
    for (const token of [
      `gitlab-token-${crypto.randomBytes(12).toString('hex')}`,
      secret.slice(0, -1),
      `${secret}x`,
      secret.toUpperCase(),
    ]) {
      await expect(check(token)).resolves.toEqual(MISMATCH);
    }
  });

  it('given the old token after a rotation, then it is a mismatch', async () => {
    await expect(check(secret, BODY, `gitlab-token-${crypto.randomBytes(12).toString('hex')}`)).resolves.toEqual(MISMATCH);
  });

  it('given a changed body under the right token, then it is valid: GitLab signs nothing, the token is a bearer credential', async () => {
    await expect(check(secret, tampered(BODY))).resolves.toEqual(VALID);
  });

  it('given tokens of any length, then the check compares two SHA-256 digests: equal lengths, so it never throws and no length leaks', () => {
    // Called directly (the verifier would turn a throw into a mismatch): timingSafeEqual throws on unequal lengths.
    for (const token of ['x', secret.slice(0, 5), `${secret}${secret}`, 'y'.repeat(4096)]) {
      expect(checkGitlab(delivery('gitlab', secret, BODY, { gitlabToken: token }))).toEqual(MISMATCH);
    }
    expect(checkGitlab(delivery('gitlab', secret, BODY, { gitlabToken: secret }))).toEqual(VALID);
  });

  it('given no X-Gitlab-Token, then missing_signature; an empty or over-long one is malformed', async () => {
    await expect(check(undefined)).resolves.toEqual(MISSING);
    await expect(check('')).resolves.toEqual(MALFORMED);
    await expect(check('t'.repeat(4097))).resolves.toEqual(MALFORMED);
  });

  itPassesTheSharedCases(gitlab, { form: /^[A-Za-z0-9_-]{32}$/, described: 'a token GitLab would take' });

  it('given an empty token and an empty secret, then it is malformed', async () => {
    await expect(check('', BODY, '')).resolves.toEqual(MALFORMED);
  });
});
