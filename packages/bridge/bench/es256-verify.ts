import { generateKeyPairSync, sign, verify } from 'node:crypto';
import type { Scenario } from '../../../bench/lib/types.js';

/**
 * The signature-bound baseline of presentation verification: one raw ES256 verification (ECDSA P-256 with SHA-256,
 * RFC 7518 §3.4, IEEE P1363 signature) of a key-binding-JWT-sized signing input, node:crypto on one core.
 */
export const es256Verify: Scenario = {
  name: 'es256-verify',
  description: 'raw ES256 signature verification (P-256, node:crypto) of a KB-JWT-sized signing input, one core',
  kind: 'cpu',
  async setup() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const input = Buffer.from(
      `${Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'kb+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify({ iat: 1_764_000_000, aud: 'x509_san_dns:verifier.example', nonce: 'n'.repeat(43), sd_hash: 'h'.repeat(43) })).toString('base64url')}`,
    );
    const signature = sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    let ok = true;
    return {
      fn: () => {
        ok &&= verify('sha256', input, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
      },
      async teardown() {
        if (!ok) throw new Error('ES256 verification failed');
      },
    };
  },
};
