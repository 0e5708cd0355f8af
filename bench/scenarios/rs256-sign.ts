import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import type { Scenario } from '../lib/types.js';

/**
 * The JWS signing input (RFC 7515 §5.1: base64url(header) '.' base64url(payload)) of a typical access token
 * (RFC 9068 claims), about the size the token service signs.
 */
export function typicalJwtSigningInput(): Buffer {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = 1_764_000_000;
  const header = { alg: 'RS256', typ: 'at+jwt', kid: 'bench-2025-11' };
  const payload = {
    iss: 'https://token.example.test/demo',
    sub: 'did:example:ebfeb1f712ebc6f1c276e12ec21',
    aud: 'https://api.example.test',
    client_id: 'relying-party-0001',
    scope: 'openid profile credential:read',
    tenant_id: 'demo',
    iat: now,
    nbf: now,
    exp: now + 3600,
    jti: randomUUID(),
  };
  return Buffer.from(`${b64(header)}.${b64(payload)}`);
}

/**
 * The signing-bound baseline: RS256 (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 §3.3) over a JWT signing input
 * with a 2048-bit key, node:crypto on one core. A token-issuing scenario compares its rate with this one.
 */
export const rs256Sign: Scenario = {
  name: 'rs256-sign',
  description: 'raw RS256 signature (2048-bit key, node:crypto) of a typical access-token signing input, one core',
  kind: 'cpu',
  async setup() {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const input = typicalJwtSigningInput();
    let last: Buffer | null = null;
    return {
      fn: () => {
        last = sign('sha256', input, privateKey);
      },
      async teardown() {
        if (last === null || last.length !== 256) throw new Error('RS256 produced no 256-byte signature');
      },
    };
  },
};
