import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyEs256WithJwk } from '../src/credentials/es256-jwk-verify.js';
import { verifyJwkSignedJwt } from '../src/credentials/proofs.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function signed(header: Record<string, unknown>, payload: Record<string, unknown> = { nonce: 'n' }) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  const input = `${b64(header)}.${b64(payload)}`;
  const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return { compact: `${input}.${signature.toString('base64url')}`, jwk: { kty, crv, x, y } as Record<string, unknown> };
}

describe('ES256 proof verification with node:crypto', () => {
  const header = { typ: 'openid4vci-proof+jwt', alg: 'ES256' };

  it('verifies a proof signed by its bare P-256 JWK, and refuses another key or a changed signature', () => {
    const { compact, jwk } = signed(header);
    expect(verifyEs256WithJwk(compact, header, jwk)).toBe(true);
    expect(verifyEs256WithJwk(compact, header, { ...jwk, kid: 'k' })).toBe(true);
    expect(verifyEs256WithJwk(compact, header, signed(header).jwk)).toBe(false);
    const last = compact.at(-2) === 'A' ? 'B' : 'A';
    expect(verifyEs256WithJwk(`${compact.slice(0, -2)}${last}${compact.at(-1)}`, header, jwk)).toBe(false);
    expect(verifyEs256WithJwk(`${compact}A`, header, jwk)).toBe(false);
    expect(verifyEs256WithJwk(compact, { ...header, alg: 'ES384' }, jwk)).toBe(false);
    expect(verifyEs256WithJwk(compact, header, { ...jwk, x: jwk.y })).toBe(false);
  });

  it('leaves crit, b64 and JWKs with other members to jose, which judges them as before', async () => {
    const { compact, jwk } = signed(header);
    expect(verifyEs256WithJwk(compact, { ...header, crit: ['b64'], b64: true }, jwk)).toBeNull();
    expect(verifyEs256WithJwk(compact, header, { ...jwk, use: 'sig' })).toBeNull();
    expect(verifyEs256WithJwk(compact, header, { ...jwk, crv: 'P-384' })).toBeNull();
    const viaJose = await verifyJwkSignedJwt(
      { method: 'jwk', publicJwk: { ...jwk, key_ops: ['sign'] } },
      { compact, header },
    );
    expect(viaJose.verified).toBe(false);
    const fast = await verifyJwkSignedJwt({ method: 'jwk', publicJwk: jwk }, { compact, header });
    expect(fast.verified).toBe(true);
  });
});
