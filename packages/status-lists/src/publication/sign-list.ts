import { AppError, base64urlBytes, base64urlJson, signingInputBytes, type KeyManager } from '@tessera/platform';
import { didJwkOf } from '../domain/did-jwk.js';

/**
 * A compact JWS (RFC 7515 §7.1) signed by the key manager under `alias`. The header's `kid` names the key the way
 * the issuer publishes it: the key manager's kid in the issuer's JWKS (/.well-known/jwt-vc-issuer), or `#0` of a
 * did:jwk issuer, whose DID must still be the alias's active key. Header and signature come from one version of the
 * key (KeyManager.activeSigningKey), so a rotation in between cannot make them disagree.
 */
export async function signListJwt(
  keys: KeyManager,
  alias: string,
  issuer: string,
  typ: string,
  payload: Record<string, unknown>,
): Promise<string> {
  const key = keys.readyActiveSigningKey(alias) ?? (await keys.activeSigningKey(alias));
  let kid = key.kid;
  if (issuer.startsWith('did:jwk:')) {
    if (didJwkOf(key.publicJwk) !== issuer) {
      throw new AppError('service_unavailable', 'The list issuer (a did:jwk) no longer names the active signing key.');
    }
    kid = `${issuer}#0`;
  }
  const signingInput = `${base64urlJson({ alg: key.algorithm, typ, kid })}.${base64urlJson(payload)}`;
  const signature = await key.sign(signingInputBytes(signingInput));
  return `${signingInput}.${base64urlBytes(signature.signature)}`;
}
