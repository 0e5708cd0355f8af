import { jwkThumbprintUri, sha256Base64url } from '../verification/jws.js';
import type { VerifiedCredential } from '../verification/credential.js';

/**
 * The holder key a binding is kept under (000 §2.5 "wallet holder key"; configuration
 * identityResolution.holderKeyStrategy):
 * - credential-key: the RFC 9278 thumbprint URI of the key-binding key of the presentation;
 * - issuer-subject: a digest of the issuer and the subject claim, for wallets that use a fresh key per credential.
 * Null when the strategy finds nothing to key on.
 */
export async function holderKeyOf(
  credential: VerifiedCredential,
  strategy: 'credential-key' | 'issuer-subject',
  subjectClaim: string,
): Promise<string | null> {
  if (strategy === 'credential-key') return jwkThumbprintUri(credential.holderJwk);
  const subject = credential.jwtPayload[subjectClaim];
  if (typeof subject !== 'string' || subject === '' || credential.issuer === '') return null;
  return `urn:tessera:issuer-subject:${sha256Base64url(JSON.stringify([credential.issuer, subject]))}`;
}
