import { createHash, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { clientAuthenticationAnonymous, type JwtSignerJwk } from '@openid4vc/oauth2';
import { Openid4vciClient } from '@openid4vc/openid4vci';
import { toPublicJwk } from '../crypto/generate-es256-key.js';
import { signCompactJwt } from '../crypto/sign-compact-jwt.js';

export interface VciClient {
  client: Openid4vciClient;
  /** The library's signer for one of the wallet's private keys (proofs, DPoP); the key is kept for signing. */
  signerFor(privateJwk: JWK): Promise<JwtSignerJwk>;
}

const NODE_HASH: Record<string, string> = { 'sha-256': 'sha256', 'sha-384': 'sha384', 'sha-512': 'sha512' };

/**
 * The wallet client of `@openid4vc/openid4vci` (OpenID4VCI 1.0) with the wallet's own crypto: hashing and randomness
 * from node:crypto, JWTs (key proofs, DPoP proofs) signed with the private keys handed to `signerFor`, requests
 * through the wallet's fetch. The wallet is a public client: no client authentication at the token endpoint.
 */
export function createVciClient(fetchFunction: typeof fetch): VciClient {
  const privateKeys = new Map<string, JWK>();
  const client = new Openid4vciClient({
    callbacks: {
      hash: (data, alg) =>
        createHash(NODE_HASH[alg] ?? 'sha256')
          .update(data)
          .digest(),
      generateRandom: (length) => randomBytes(length),
      fetch: fetchFunction,
      clientAuthentication: clientAuthenticationAnonymous(),
      signJwt: async (signer, { header, payload }) => {
        if (signer.method !== 'jwk') throw new Error(`the wallet signs only with jwk signers, not ${signer.method}`);
        const privateJwk = privateKeys.get(await calculateJwkThumbprint(signer.publicJwk as JWK));
        if (!privateJwk) throw new Error('the wallet holds no private key for this signer');
        const jwt = await signCompactJwt({
          header: header as Parameters<typeof signCompactJwt>[0]['header'],
          payload: payload as Record<string, unknown>,
          privateJwk,
        });
        return { jwt, signerJwk: signer.publicJwk };
      },
    },
  });
  return {
    client,
    async signerFor(privateJwk) {
      const publicJwk = toPublicJwk(privateJwk);
      privateKeys.set(await calculateJwkThumbprint(publicJwk), privateJwk);
      return { method: 'jwk', alg: 'ES256', publicJwk: publicJwk as JwtSignerJwk['publicJwk'] };
    },
  };
}
