import { AppError, base64urlBytes, base64urlJson, signingInputBytes, type KeyManager } from '@tessera/platform';
import { didJwkOf } from '../domain/did-jwk.js';

/**
 * A compact JWS (RFC 7515 §7.1) signed by the key manager under `alias`. The header's `kid` names the key the way
 * the issuer publishes it: the key manager's kid in the issuer's JWKS (/.well-known/jwt-vc-issuer), or `#0` of a
 * did:jwk issuer, whose DID must still be the alias's active key.
 */
export async function signListJwt(
  keys: KeyManager,
  alias: string,
  issuer: string,
  typ: string,
  payload: Record<string, unknown>,
): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const jwk = await keys.publicJwk(alias);
    let kid = jwk.kid!;
    if (issuer.startsWith('did:jwk:')) {
      if (didJwkOf(jwk) !== issuer) {
        throw new AppError(
          'service_unavailable',
          'The list issuer (a did:jwk) no longer names the active signing key.',
        );
      }
      kid = `${issuer}#0`;
    }
    const signingInput = `${base64urlJson({ alg: jwk.alg, typ, kid })}.${base64urlJson(payload)}`;
    const signature = await keys.sign(alias, signingInputBytes(signingInput));
    // The key rotated between reading its public key and signing: sign again under the new one.
    if (signature.kid === jwk.kid) return `${signingInput}.${base64urlBytes(signature.signature)}`;
  }
  throw new AppError('service_unavailable', 'The signing key kept changing while the list was signed.');
}
