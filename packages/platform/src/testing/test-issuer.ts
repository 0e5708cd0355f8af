import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type JWTPayload } from 'jose';

/**
 * A token issuer for tests: an RS256 key whose JWKS is served over real HTTP on loopback, counting fetches.
 * Stands for any external authorization server whose key set the platform is configured to trust.
 */
export interface TestIssuer {
  issuer: string;
  jwksUri: string;
  audience: string;
  /** How many times the key set was fetched. */
  readonly fetches: number;
  sign(claims: JWTPayload, options?: { expiresInSeconds?: number; kid?: string }): Promise<string>;
  close(): Promise<void>;
}

export async function startTestIssuer(audience = 'tessera-api'): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  let fetches = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === '/jwks') {
      fetches++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer: base,
    jwksUri: `${base}/jwks`,
    audience,
    get fetches() {
      return fetches;
    },
    async sign(claims, options = {}) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? jwk.kid! })
        .setIssuer(base)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(`${options.expiresInSeconds ?? 300}s`)
        .sign(privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
