import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { digest } from '@sd-jwt/crypto-nodejs';

/** The SD-JWT library used for decoding and for choosing Disclosures; it needs only a hasher for that. */
export function createSdJwtTool(): SDJwtVcInstance {
  return new SDJwtVcInstance({ hasher: digest, hashAlg: 'sha-256' });
}
