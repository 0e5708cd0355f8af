import { createHash, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { clientAuthenticationAnonymous, type JwtSignerJwk } from '@openid4vc/oauth2';
import { Openid4vciClient } from '@openid4vc/openid4vci';

/**
 * A wallet built on the client of @openid4vc/openid4vci (the library's own wallet side, independent of our
 * issuer code): ES256 keys made here, signing with jose.
 */
export interface LibraryWallet {
  client: Openid4vciClient;
  /** A fresh ES256 key as the library's jwk signer, with its private key kept for the signing callback. */
  newSigner(): Promise<JwtSignerJwk>;
  /** A DPoP proof (RFC 9449 §4.2) for a raw request with an access token, signed by one of the wallet's keys. */
  dpopProof(signer: JwtSignerJwk, method: string, url: string, accessToken: string): Promise<string>;
  /** The private JWK of one of the wallet's keys (to hand the key to another wallet, the test wallet). */
  exportPrivate(signer: JwtSignerJwk): Promise<JWK>;
  /** A jwt proof (OpenID4VCI 1.0 Appendix F.1) made by hand, so that tests can spoil any part of it. */
  proofJwt(
    signer: JwtSignerJwk,
    claims: { aud: string; nonce?: string; iat?: number },
    header?: Record<string, unknown>,
  ): Promise<string>;
}

export function createLibraryWallet(): LibraryWallet {
  const privateKeys = new Map<string, CryptoKey>();
  const thumb = (jwk: JWK) => `${jwk.x}.${jwk.y}`;
  const client = new Openid4vciClient({
    callbacks: {
      hash: (data, alg) =>
        createHash(alg === 'sha-384' ? 'sha384' : alg === 'sha-512' ? 'sha512' : 'sha256')
          .update(data)
          .digest(),
      generateRandom: (n) => randomBytes(n),
      fetch,
      clientAuthentication: clientAuthenticationAnonymous(),
      signJwt: async (signer, { header, payload }) => {
        const jwk = (signer as JwtSignerJwk).publicJwk as JWK;
        const key = privateKeys.get(thumb(jwk));
        if (!key) throw new Error('unknown wallet key');
        const jwt = await new SignJWT(payload as Record<string, unknown>)
          .setProtectedHeader(header as { alg: string })
          .sign(key);
        return { jwt, signerJwk: jwk as never };
      },
    },
  });
  return {
    client,
    exportPrivate: (signer) => exportJWK(privateKeys.get(thumb(signer.publicJwk as JWK))!),
    async proofJwt(signer, claims, header = {}) {
      const jwk = signer.publicJwk as JWK;
      return new SignJWT({ iat: Math.floor(Date.now() / 1000), ...claims })
        .setProtectedHeader({ typ: 'openid4vci-proof+jwt', alg: 'ES256', jwk, ...header } as { alg: string })
        .sign(privateKeys.get(thumb(jwk))!);
    },
    async dpopProof(signer, method, url, accessToken) {
      const jwk = signer.publicJwk as JWK;
      return new SignJWT({
        htm: method,
        htu: url,
        iat: Math.floor(Date.now() / 1000),
        jti: randomBytes(16).toString('base64url'),
        ath: createHash('sha256').update(accessToken).digest('base64url'),
      })
        .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk })
        .sign(privateKeys.get(thumb(jwk))!);
    },
    async newSigner() {
      const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
      const publicJwk = await exportJWK(publicKey);
      privateKeys.set(thumb(publicJwk), privateKey as CryptoKey);
      return { method: 'jwk', alg: 'ES256', publicJwk: publicJwk as never };
    },
  };
}
