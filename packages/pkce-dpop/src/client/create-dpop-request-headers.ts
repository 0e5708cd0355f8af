import { createDpopProof } from '../dpop/create-dpop-proof.js';
import type { DpopContext } from '../dpop/dpop-types.js';

/**
 * The two headers of a request with a DPoP-bound access token (spec 002 §5, RFC 9449 §7.1):
 * `Authorization: DPoP <token>` (scheme DPoP, not Bearer) and `DPoP: <proof>` with `ath`, and the context's
 * latest nonce.
 */
export async function createDpopRequestHeaders(
  context: DpopContext,
  request: { httpMethod: string; httpUrl: string | URL; accessToken: string },
): Promise<{ authorization: string; dpop: string }> {
  const { dpopProof } = await createDpopProof({
    issuer: context.issuer,
    publicJwk: context.publicJwk,
    httpMethod: request.httpMethod,
    httpUrl: request.httpUrl,
    accessToken: request.accessToken,
    nonce: context.dpopNonce,
  });
  return { authorization: `DPoP ${request.accessToken}`, dpop: dpopProof };
}

/** Stores a response's `DPoP-Nonce` in the context, so the next proof carries the latest value (RFC 9449 §8, §9). */
export function rememberDpopNonce(context: DpopContext, headers: { get(name: string): string | null }): void {
  const nonce = headers.get('dpop-nonce');
  if (nonce !== null && nonce !== '') context.dpopNonce = nonce;
}
