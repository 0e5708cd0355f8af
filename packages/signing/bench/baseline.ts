import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { Scenario } from '../../../bench/lib/types.js';

export const ONE_MIB = 1024 * 1024;

/**
 * The floor of signing a 1 MiB document: SHA-256 over 1 MiB plus one RSA-2048 signature (PKCS #1 v1.5), node:crypto
 * on one core: what any PAdES signature of such a document must at least compute.
 */
export const sha256Rsa2048OneMib: Scenario = {
  name: 'sha256-1mib-rsa2048',
  description: 'SHA-256 over 1 MiB plus one RSA-2048 signature, node:crypto on one core',
  kind: 'cpu',
  async setup() {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const document = randomBytes(ONE_MIB);
    let last = Buffer.alloc(0);
    return {
      fn: () => {
        const digest = createHash('sha256').update(document).digest();
        last = sign('sha256', digest, privateKey);
      },
      async teardown() {
        if (last.length !== 256) throw new Error('the RSA-2048 signature has the wrong length');
      },
    };
  },
};
