import type { JWK } from 'jose';
import type { DpopKeySigner, DpopSigningAlg } from './dpop-types.js';

/**
 * The part of the platform KeyManager (packages/platform/src/keys/key-manager.ts) that DPoP needs, typed
 * structurally so that this package does not depend on the platform.
 */
export interface DpopKeyManager {
  sign(alias: string, data: Uint8Array): Promise<{ kid: string; algorithm: string; signature: Uint8Array }>;
  publicJwk(alias: string): Promise<JWK>;
}

/**
 * A DpopKeySigner over a key-management alias (spec 002 §4.3: the key pair lives under an alias, ECDSA_SHA256 by
 * default). The key must exist already (KeyManager.ensure(alias, 'ES256')).
 *
 * A proof's `jwk` and its signature must come from the same key version. If the alias is rotated between the
 * moment the public key was read and the signature, signing fails instead of producing a proof that no server
 * would accept; read the public key again (create a new DpopContext) and retry.
 */
export function dpopSignerFromKeyManager(
  keys: DpopKeyManager,
  alias: string,
  alg: DpopSigningAlg = 'ES256',
): DpopKeySigner {
  let publicKid: string | undefined;
  return {
    alg,
    async publicJwk() {
      const jwk = await keys.publicJwk(alias);
      publicKid = jwk.kid;
      return jwk;
    },
    async sign(data) {
      const result = await keys.sign(alias, data);
      if (result.algorithm !== alg) {
        throw new TypeError(`key alias "${alias}" signs with ${result.algorithm}, not ${alg}`);
      }
      if (publicKid !== undefined && result.kid !== publicKid) {
        throw new Error(`key alias "${alias}" was rotated; create a new DPoP context`);
      }
      return result.signature;
    },
  };
}
