import { randomUUID } from 'node:crypto';
import type { JWK } from 'jose';
import { decodeJsonBase64Url, encodeJsonBase64Url } from '../common/base64url.js';
import { signCompactJwt } from '../crypto/sign-compact-jwt.js';
import { CREDENTIALS_V1_CONTEXT } from '../issuer/sign-status-list-credential.js';
import type { HeldCredential } from './decode-held-credential.js';

export interface JwtVcPresentationVariants {
  omitKeyBinding?: boolean;
  tamperDisclosure?: boolean | string;
}

/** Lifetime of a VP JWT; it is used at once. */
const VP_LIFETIME_SECONDS = 300;

/** Alters a credentialSubject value of the VC-JWT payload and keeps the old signature, which then fails. */
function tamperCredential(vcJwt: string, claim: string | undefined): string {
  const [header, payload, signature] = vcJwt.split('.') as [string, string, string];
  const decoded = decodeJsonBase64Url<{ vc?: { credentialSubject?: Record<string, unknown> } }>(payload);
  const subject = decoded.vc?.credentialSubject ?? {};
  const name = claim ?? Object.keys(subject).find((key) => key !== 'id');
  if (name) subject[name] = `${String(subject[name])}-tampered`;
  return `${header}.${encodeJsonBase64Url(decoded)}.${signature}`;
}

/**
 * A jwt_vc_json presentation (OpenID4VP 1.0 Appendix B.1.3.1): a VP JWT (VC Data Model 1.1 §6.3.1) signed by the
 * holder DID named in the credential, with `aud` = client_id and `nonce` = the request nonce, carrying the VC-JWT in
 * `vp.verifiableCredential`.
 */
export async function presentJwtVc(input: {
  credential: HeldCredential;
  holderDid: string;
  holderKeyId: string;
  holderPrivateJwk: JWK;
  audience: string;
  nonce: string;
  iat: number;
  variants: JwtVcPresentationVariants;
}): Promise<{ presentation: string; disclosedClaims: string[] }> {
  const { variants } = input;
  const subject = (input.credential.claims['credentialSubject'] ?? {}) as Record<string, unknown>;
  const disclosedClaims = Object.keys(subject).filter((key) => key !== 'id');
  const vcJwt = variants.tamperDisclosure
    ? tamperCredential(
        input.credential.raw,
        typeof variants.tamperDisclosure === 'string' ? variants.tamperDisclosure : undefined,
      )
    : input.credential.raw;
  if (variants.omitKeyBinding) return { presentation: vcJwt, disclosedClaims };
  const presentation = await signCompactJwt({
    header: { alg: 'ES256', typ: 'JWT', kid: input.holderKeyId },
    payload: {
      iss: input.holderDid,
      aud: input.audience,
      nonce: input.nonce,
      iat: input.iat,
      nbf: input.iat,
      exp: input.iat + VP_LIFETIME_SECONDS,
      jti: `urn:uuid:${randomUUID()}`,
      vp: {
        '@context': [CREDENTIALS_V1_CONTEXT],
        type: ['VerifiablePresentation'],
        holder: input.holderDid,
        verifiableCredential: [vcJwt],
      },
    },
    privateJwk: input.holderPrivateJwk,
  });
  return { presentation, disclosedClaims };
}
