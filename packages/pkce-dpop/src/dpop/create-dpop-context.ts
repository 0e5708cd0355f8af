import { computeJwkThumbprint } from './compute-jwk-thumbprint.js';
import type { DpopContext, DpopIssuer } from './dpop-types.js';
import { curveOf, toPublicJwk } from './public-jwk.js';

/**
 * Builds the client-side DpopContext (spec 002 §2.2): reads the public key once and computes its thumbprint, the
 * `jkt` that a DPoP-bound token will carry (RFC 9449 §6.1) and the `dpop_jkt` of an authorization request (§10).
 */
export async function createDpopContext(
  issuer: DpopIssuer,
  options: { dpopNonce?: string | null } = {},
): Promise<DpopContext> {
  const publicJwk = toPublicJwk(await issuer.signer.publicJwk());
  if (publicJwk.kty !== 'EC' || publicJwk.crv !== curveOf(issuer.signer.alg)) {
    throw new TypeError(`the DPoP key of "${issuer.identifier}" is not a ${curveOf(issuer.signer.alg)} EC key`);
  }
  return {
    publicJwk,
    issuer,
    jwkThumbprint: await computeJwkThumbprint(publicJwk),
    dpopNonce: options.dpopNonce ?? null,
  };
}
