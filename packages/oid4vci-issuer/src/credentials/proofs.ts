import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { Openid4vciIssuer } from '@openid4vc/openid4vci';
import { vciError } from '../domain/errors.js';
import { verifyEs256WithJwk } from './es256-jwk-verify.js';

export interface VerifiedProof {
  holderJwk: JWK;
  nonce: string;
}

/**
 * The library's verifyJwt callback (services.ts): a proof names its key by `jwk` only; ES256 (HAIP 1.0 §5).
 */
export async function verifyJwkSignedJwt(
  signer: { method: string; publicJwk?: unknown },
  token: { compact: string; header?: Record<string, unknown> },
): Promise<{ verified: true; signerJwk: never } | { verified: false }> {
  if (signer.method !== 'jwk' || !signer.publicJwk) return { verified: false };
  const fast = token.header
    ? verifyEs256WithJwk(token.compact, token.header, signer.publicJwk as Record<string, unknown>)
    : null;
  if (fast !== null) return fast ? { verified: true, signerJwk: signer.publicJwk as never } : { verified: false };
  try {
    const key = await importJWK(signer.publicJwk as JWK, 'ES256');
    await compactVerify(token.compact, key, { algorithms: ['ES256'] });
    return { verified: true, signerJwk: signer.publicJwk as never };
  } catch {
    return { verified: false };
  }
}

/**
 * One jwt proof (OpenID4VCI 1.0 §8.2.1.1, Appendix F.1) verified with the library's building block: typ
 * `openid4vci-proof+jwt`, signed by the `jwk` of its header (ES256 only, no private key), `aud` = the credential
 * issuer, `iss` = the client when one is known, a nonce present; then its `iat` within the window. Whether the
 * nonce is live is the caller's check (database, single use).
 */
export async function verifyJwtProof(
  library: Openid4vciIssuer,
  jwt: string,
  o: { credentialIssuer: string; clientId: string | undefined; now: Date; iatWindowSeconds: number },
): Promise<VerifiedProof> {
  let header: Record<string, unknown>;
  let payload: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(jwt) as Record<string, unknown>;
    payload = decodeJwt(jwt) as Record<string, unknown>;
  } catch {
    throw vciError('invalid_proof', 'The proof is not a JWT.');
  }
  if (header.typ !== 'openid4vci-proof+jwt')
    throw vciError('invalid_proof', 'The proof typ is not openid4vci-proof+jwt.');
  if (header.alg !== 'ES256')
    throw vciError('invalid_proof', 'The proof is signed with ES256 (proof_signing_alg_values_supported).');
  const jwk = header.jwk as JWK | undefined;
  if (!jwk || typeof jwk !== 'object' || 'd' in jwk || header.kid !== undefined || header.x5c !== undefined)
    throw vciError(
      'invalid_proof',
      'The proof names its key by a public jwk in its header (cryptographic_binding_methods_supported: jwk).',
    );
  if (typeof payload.nonce !== 'string' || payload.nonce === '')
    throw vciError('invalid_nonce', 'The proof carries no c_nonce; ask the nonce endpoint for one.');
  try {
    await library.verifyCredentialRequestJwtProof({
      jwt,
      expectedNonce: payload.nonce,
      clientId: o.clientId,
      now: o.now,
      issuerMetadata: { credentialIssuer: { credential_issuer: o.credentialIssuer } } as never,
    });
  } catch (error) {
    throw vciError(
      'invalid_proof',
      `The proof is not valid: ${firstLine(
        (error as { errorResponse?: { error_description?: string } }).errorResponse?.error_description ??
          (error instanceof Error ? error.message : 'unverifiable'),
      )}`,
    );
  }
  const iat = payload.iat;
  if (typeof iat !== 'number') throw vciError('invalid_proof', 'The proof carries no iat.');
  const nowSeconds = o.now.getTime() / 1000;
  if (Math.abs(nowSeconds - iat) > o.iatWindowSeconds)
    throw vciError('invalid_proof', 'The proof iat is outside the accepted window.');
  return { holderJwk: publicJwk(jwk), nonce: payload.nonce };
}

const firstLine = (s: string) => s.split('\n')[0]!.slice(0, 200);

/** The key members only (kty, crv, x, y / n, e): what `cnf.jwk` carries. */
function publicJwk(jwk: JWK): JWK {
  const { kty, crv, x, y, n, e } = jwk;
  return Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined)) as JWK;
}
