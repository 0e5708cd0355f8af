import { generateKeyPairSync, sign, verify } from 'node:crypto';
import type { Scenario } from '../../../bench/lib/types.js';

/**
 * The cryptographic bound of a credential request (issue 19): one ES256 verification (the wallet's proof) and one
 * ES256 signature (the credential), node:crypto, P-256, JWS signature form, on one core.
 */
export const es256VerifySign: Scenario = {
  name: 'es256-verify-sign',
  description: 'one ES256 verify + one ES256 sign (P-256, node:crypto) over JWT-sized inputs, one core',
  kind: 'cpu',
  async setup() {
    const holder = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const issuer = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const proofInput = Buffer.from('e'.repeat(420));
    const credentialInput = Buffer.from('c'.repeat(900));
    const proofSignature = sign('sha256', proofInput, { key: holder.privateKey, dsaEncoding: 'ieee-p1363' });
    let ok = true;
    return {
      fn: () => {
        ok &&= verify('sha256', proofInput, { key: holder.publicKey, dsaEncoding: 'ieee-p1363' }, proofSignature);
        sign('sha256', credentialInput, { key: issuer.privateKey, dsaEncoding: 'ieee-p1363' });
      },
      async teardown() {
        if (!ok) throw new Error('ES256 verification failed');
      },
    };
  },
};
