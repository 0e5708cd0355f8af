import { describe, expect, it } from 'vitest';
import { DpopError, dpopChallenge } from '../src/index.js';

describe('dpopChallenge', () => {
  it('builds the RFC 9449 §7.1 WWW-Authenticate value with error, description and algs', () => {
    const error = new DpopError('invalid_dpop_proof', 'htm_mismatch', 'DPoP proof htm does not match the request');
    expect(dpopChallenge(error, { algs: ['ES256', 'ES384'] })).toBe(
      'DPoP error="invalid_dpop_proof", error_description="DPoP proof htm does not match the request", algs="ES256 ES384"',
    );
  });

  it('builds the use_dpop_nonce and invalid_token challenges', () => {
    expect(
      dpopChallenge(
        { code: 'use_dpop_nonce', description: 'Resource server requires nonce in DPoP proof' },
        { algs: ['ES256'] },
      ),
    ).toBe(
      'DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", algs="ES256"',
    );
    expect(dpopChallenge({ code: 'invalid_token', description: 'Invalid DPoP key binding' }, { algs: ['ES256'] })).toBe(
      'DPoP error="invalid_token", error_description="Invalid DPoP key binding", algs="ES256"',
    );
  });

  it('without an error, names the scheme and algs only', () => {
    expect(dpopChallenge(null, { algs: ['ES256', 'PS256'] })).toBe('DPoP algs="ES256 PS256"');
    expect(dpopChallenge(null, { algs: [] })).toBe('DPoP');
  });

  it('drops quotes, backslashes and control characters from the description', () => {
    expect(dpopChallenge({ code: 'invalid_dpop_proof', description: 'bad "x"\\\r\n, y' }, { algs: [] })).toBe(
      'DPoP error="invalid_dpop_proof", error_description="bad x, y"',
    );
  });
});
