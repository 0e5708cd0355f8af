import type { JWK } from 'jose';
import type { KeyManager } from './key-manager.js';
import { base64urlBytes, base64urlJson, signingInputBytes } from './jws-encoding.js';

/**
 * Builds a compact JWS (RFC 7515 §7.1) whose signature comes from the key manager, so that no private key is
 * ever handed to a JWT library. The header gets `alg` and `kid` of the active key version.
 */
export async function signJwt(
  keys: KeyManager,
  alias: string,
  payload: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  return (await signJwtWithKey(keys, alias, payload, header)).jwt;
}

/**
 * The same, with the public JWK of the version that signed (a caller that also names the signer, such as
 * @openid4vc/oauth2's `signerJwk`). Header and signature come from one version, read from memory when the provider
 * holds it ready: a rotation in between cannot make them disagree.
 */
export async function signJwtWithKey(
  keys: KeyManager,
  alias: string,
  payload: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<{ jwt: string; publicJwk: Readonly<JWK> }> {
  const key = keys.readyActiveSigningKey(alias) ?? (await keys.activeSigningKey(alias));
  const signingInput = `${base64urlJson({ ...header, alg: key.algorithm, kid: key.kid })}.${base64urlJson(payload)}`;
  const signature = await key.sign(signingInputBytes(signingInput));
  return { jwt: `${signingInput}.${base64urlBytes(signature.signature)}`, publicJwk: key.publicJwk };
}
