import type { JWK } from 'jose';
import { createDidJwk, didJwkKeyId } from '../crypto/create-did-jwk.js';
import { toPublicJwk } from '../crypto/generate-es256-key.js';
import { signCompactJwt } from '../crypto/sign-compact-jwt.js';
import { pemToX5cEntry } from '../x509/convert-pem.js';
import type { IssuerMaterial } from './load-issuer-material.js';

/**
 * How the issuer names its key in a JWT header: `did` puts `kid` = did:jwk#0 and `iss` = the did:jwk;
 * `x5c` puts the leaf certificate in `x5c` (RFC 7515 §4.1.6) and `iss` = the certificate's SAN URI (SD-JWT VC §3.5).
 */
export type IssuerKeyReference = 'did' | 'x5c';

export interface IssuerSigner {
  did: string;
  keyId: string;
  publicJwk: JWK;
  x5c: string[];
  x509IssuerUri: string;
  issuerFor(reference: IssuerKeyReference): string;
  headerFor(reference: IssuerKeyReference, typ: string): Record<string, unknown> & { alg: string; typ: string };
  sign(header: Record<string, unknown> & { alg: string }, payload: Record<string, unknown>): Promise<string>;
}

export function createIssuerSigner(material: IssuerMaterial): IssuerSigner {
  const publicJwk = toPublicJwk(material.issuerPrivateJwk);
  const did = createDidJwk(publicJwk);
  const keyId = didJwkKeyId(did);
  // The trust anchor is left out of x5c (HAIP 1.0: the anchor is known to the verifier, not sent).
  const x5c = [pemToX5cEntry(material.leafCertificatePem)];
  return {
    did,
    keyId,
    publicJwk,
    x5c,
    x509IssuerUri: material.x509IssuerUri,
    issuerFor: (reference) => (reference === 'did' ? did : material.x509IssuerUri),
    headerFor: (reference, typ) =>
      reference === 'did' ? { alg: 'ES256', typ, kid: keyId } : { alg: 'ES256', typ, x5c },
    sign: (header, payload) => signCompactJwt({ header, payload, privateJwk: material.issuerPrivateJwk }),
  };
}
