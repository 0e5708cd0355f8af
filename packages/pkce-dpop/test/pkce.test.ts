import { describe, expect, it } from 'vitest';
import { createPkce, PkceError, validateCodeChallenge, verifyPkce } from '../src/index.js';

// RFC 7636 Appendix B.
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

function pkceFailure(fn: () => unknown): PkceError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PkceError);
    return error as PkceError;
  }
  throw new Error('expected a PkceError');
}

describe('createPkce', () => {
  it('reproduces the RFC 7636 Appendix B S256 vector', () => {
    expect(createPkce(RFC_VERIFIER, ['S256'])).toEqual({
      codeVerifier: RFC_VERIFIER,
      codeChallenge: RFC_CHALLENGE,
      codeChallengeMethod: 'S256',
    });
  });

  it('uses S256 by default and generates a 43-character verifier of the unreserved set', () => {
    const a = createPkce(null);
    const b = createPkce(null);
    expect(a.codeChallengeMethod).toBe('S256');
    expect(a.codeVerifier).toMatch(/^[A-Za-z0-9\-._~]{43}$/);
    expect(a.codeVerifier).not.toBe(b.codeVerifier);
    expect(a.codeChallenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(() => verifyPkce(a.codeVerifier, a.codeChallenge, 'S256')).not.toThrow();
  });

  it('prefers S256 when plain is allowed too, and uses plain only when it is the only method allowed', () => {
    expect(createPkce(RFC_VERIFIER, ['plain', 'S256']).codeChallengeMethod).toBe('S256');
    expect(createPkce(RFC_VERIFIER, ['plain'])).toEqual({
      codeVerifier: RFC_VERIFIER,
      codeChallenge: RFC_VERIFIER,
      codeChallengeMethod: 'plain',
    });
  });

  it('accepts verifiers of 43 and 128 characters and every unreserved character', () => {
    expect(createPkce('a'.repeat(43)).codeVerifier).toHaveLength(43);
    expect(createPkce('A-._~z0'.repeat(18) + 'ab').codeVerifier).toHaveLength(128);
  });

  it.each([
    ['42 characters', 'a'.repeat(42)],
    ['129 characters', 'a'.repeat(129)],
    ['a space', `${'a'.repeat(42)} `],
    ['a plus sign', `${'a'.repeat(42)}+`],
    ['a slash', `${'a'.repeat(42)}/`],
    ['a percent sign', `${'a'.repeat(42)}%`],
    ['a non-ASCII letter', `${'a'.repeat(42)}é`],
  ])('rejects a verifier with %s, without echoing it', (_label, verifier) => {
    const error = pkceFailure(() => createPkce(verifier));
    expect(error.code).toBe('invalid_request');
    expect(error.reason).toBe('invalid_code_verifier');
    expect(error.message).not.toContain(verifier);
  });

  it('rejects an empty or unknown method list', () => {
    expect(() => createPkce(null, [])).toThrow(TypeError);
    expect(() => createPkce(null, ['S512' as never])).toThrow(TypeError);
  });
});

describe('verifyPkce', () => {
  it('accepts the RFC 7636 Appendix B pair', () => {
    expect(() => verifyPkce(RFC_VERIFIER, RFC_CHALLENGE, 'S256')).not.toThrow();
  });

  it('rejects a verifier that does not match, as invalid_grant, without echoing either value', () => {
    const wrong = `${RFC_VERIFIER.slice(0, -1)}A`;
    const error = pkceFailure(() => verifyPkce(wrong, RFC_CHALLENGE, 'S256'));
    expect(error.code).toBe('invalid_grant');
    expect(error.reason).toBe('verifier_mismatch');
    expect(error.message).not.toContain(wrong);
    expect(error.message).not.toContain(RFC_CHALLENGE);
  });

  it.each([
    ['42 characters', 'a'.repeat(42)],
    ['129 characters', 'a'.repeat(129)],
    ['a character outside [A-Za-z0-9-._~]', `${'a'.repeat(42)}!`],
  ])('rejects a verifier of %s as invalid_request', (_label, verifier) => {
    const error = pkceFailure(() => verifyPkce(verifier, RFC_CHALLENGE, 'S256'));
    expect(error.code).toBe('invalid_request');
    expect(error.reason).toBe('invalid_code_verifier');
    expect(error.message).not.toContain(verifier);
  });

  it('refuses plain unless allowed, and then checks it', () => {
    expect(pkceFailure(() => verifyPkce(RFC_VERIFIER, RFC_VERIFIER, 'plain')).reason).toBe('method_not_allowed');
    expect(() => verifyPkce(RFC_VERIFIER, RFC_VERIFIER, 'plain', ['S256', 'plain'])).not.toThrow();
    expect(pkceFailure(() => verifyPkce(RFC_VERIFIER, RFC_CHALLENGE, 'plain', ['plain'])).reason).toBe(
      'verifier_mismatch',
    );
  });

  it('treats an absent method as plain (RFC 7636 §4.3), so refuses it by default', () => {
    expect(pkceFailure(() => verifyPkce(RFC_VERIFIER, RFC_VERIFIER, null)).reason).toBe('method_not_allowed');
    expect(pkceFailure(() => verifyPkce(RFC_VERIFIER, RFC_CHALLENGE, undefined)).reason).toBe('method_not_allowed');
  });

  it('refuses an unknown method', () => {
    expect(pkceFailure(() => verifyPkce(RFC_VERIFIER, RFC_CHALLENGE, 'S512')).reason).toBe('method_not_allowed');
  });

  it('rejects a verifier for a code issued without a challenge (no downgrade, RFC 9700 §2.1.1)', () => {
    const error = pkceFailure(() => verifyPkce(RFC_VERIFIER, null, null));
    expect(error).toMatchObject({ code: 'invalid_grant', reason: 'unexpected_code_verifier' });
  });

  it('rejects a missing verifier when the code has a challenge', () => {
    expect(pkceFailure(() => verifyPkce(undefined, RFC_CHALLENGE, 'S256'))).toMatchObject({
      code: 'invalid_grant',
      reason: 'missing_code_verifier',
    });
    expect(pkceFailure(() => verifyPkce('', RFC_CHALLENGE, 'S256')).reason).toBe('missing_code_verifier');
  });

  it('rejects a call with neither verifier nor challenge', () => {
    expect(pkceFailure(() => verifyPkce(null, null, null)).reason).toBe('missing_code_challenge');
  });
});

describe('validateCodeChallenge', () => {
  it('accepts an S256 challenge and returns the method', () => {
    expect(validateCodeChallenge(RFC_CHALLENGE, 'S256')).toBe('S256');
  });

  it('requires a challenge', () => {
    expect(pkceFailure(() => validateCodeChallenge(undefined, 'S256'))).toMatchObject({
      code: 'invalid_request',
      reason: 'missing_code_challenge',
    });
  });

  it('refuses plain and an absent method unless plain is allowed', () => {
    expect(pkceFailure(() => validateCodeChallenge(RFC_VERIFIER, 'plain')).reason).toBe('method_not_allowed');
    expect(pkceFailure(() => validateCodeChallenge(RFC_VERIFIER, undefined)).reason).toBe('method_not_allowed');
    expect(validateCodeChallenge(RFC_VERIFIER, undefined, ['S256', 'plain'])).toBe('plain');
  });

  it('rejects a malformed S256 challenge', () => {
    expect(pkceFailure(() => validateCodeChallenge(`${RFC_CHALLENGE}A`, 'S256')).reason).toBe('invalid_code_challenge');
    expect(pkceFailure(() => validateCodeChallenge(`${RFC_CHALLENGE.slice(1)}=`, 'S256')).reason).toBe(
      'invalid_code_challenge',
    );
  });
});
