import type { JWK } from 'jose';
import { decodeBase64Url, decodeJsonBase64Url, encodeJsonBase64Url } from '../common/base64url.js';
import { encodeUnsecuredJwt } from '../crypto/sign-compact-jwt.js';
import { createDisclosure } from '../issuer/create-disclosure.js';
import { buildPresentationFrame } from './build-presentation-frame.js';
import { createSdJwtTool } from './create-sd-jwt-tool.js';
import type { HeldCredential } from './decode-held-credential.js';
import type { ClaimPath } from './select-credentials.js';
import { computeSdHash, signKeyBindingJwt } from './sign-key-binding-jwt.js';

export interface SdJwtPresentationVariants {
  omitKeyBinding?: boolean;
  keyBindingTyp?: string;
  wrongSdHash?: boolean;
  tamperDisclosure?: boolean | string;
  extraUnreferencedDisclosure?: boolean;
  duplicateDisclosure?: boolean;
  stripIssuerSignature?: boolean;
}

export interface SdJwtPresentation {
  presentation: string;
  disclosedClaims: string[];
}

function claimNameOf(disclosure: string): string | undefined {
  const decoded = decodeJsonBase64Url<unknown[]>(disclosure);
  return decoded.length === 3 ? String(decoded[1]) : undefined;
}

/** Changes the value inside a Disclosure and re-encodes it: its digest no longer matches any `_sd` entry. */
function tamper(disclosure: string): string {
  const decoded = decodeJsonBase64Url<unknown[]>(disclosure);
  const index = decoded.length - 1;
  const value = decoded[index];
  decoded[index] = typeof value === 'string' ? `${value}-tampered` : 'tampered';
  return encodeJsonBase64Url(decoded);
}

/** Selects the Disclosures of the requested claims with the SD-JWT library; every Disclosure if it cannot decode them. */
async function selectDisclosures(credential: HeldCredential, claimPaths: ClaimPath[]): Promise<string> {
  try {
    return await createSdJwtTool().present(credential.raw, buildPresentationFrame(claimPaths, credential.claims));
  } catch {
    return credential.raw.endsWith('~') ? credential.raw : `${credential.raw}~`;
  }
}

/**
 * An SD-JWT VC presentation (RFC 9901 §4; OpenID4VP 1.0 Appendix B.3.6): the issuer-signed JWT, only the
 * Disclosures of the requested claims, and a KB-JWT bound to the verifier's client_id and nonce.
 */
export async function presentSdJwtVc(input: {
  credential: HeldCredential;
  claimPaths: ClaimPath[];
  holderPrivateJwk: JWK;
  audience: string;
  nonce: string;
  iat: number;
  variants: SdJwtPresentationVariants;
}): Promise<SdJwtPresentation> {
  const { variants } = input;
  const parts = (await selectDisclosures(input.credential, input.claimPaths)).split('~');
  let jwt = parts[0]!;
  const disclosures = parts.slice(1).filter((part) => part.length > 0);

  if (variants.tamperDisclosure && disclosures.length > 0) {
    const wanted = typeof variants.tamperDisclosure === 'string' ? variants.tamperDisclosure : undefined;
    const index = wanted ? disclosures.findIndex((disclosure) => claimNameOf(disclosure) === wanted) : 0;
    if (index >= 0) disclosures[index] = tamper(disclosures[index]!);
  }
  if (variants.duplicateDisclosure && disclosures[0]) disclosures.push(disclosures[0]);
  if (variants.extraUnreferencedDisclosure)
    disclosures.push(createDisclosure('unreferenced_claim', 'not referenced by any digest').encoded);
  if (variants.stripIssuerSignature) {
    const [header = '', payload = ''] = jwt.split('.');
    jwt = encodeUnsecuredJwt(
      JSON.parse(decodeBase64Url(header).toString('utf8')),
      JSON.parse(decodeBase64Url(payload).toString('utf8')),
    );
  }

  const withoutKeyBinding = `${jwt}~${disclosures.map((disclosure) => `${disclosure}~`).join('')}`;
  const disclosedClaims = disclosures.map(claimNameOf).filter((name): name is string => name !== undefined);
  if (variants.omitKeyBinding) return { presentation: withoutKeyBinding, disclosedClaims };

  const keyBinding = await signKeyBindingJwt({
    privateJwk: input.holderPrivateJwk,
    typ: variants.keyBindingTyp ?? 'kb+jwt',
    iat: input.iat,
    aud: input.audience,
    nonce: input.nonce,
    sdHash: computeSdHash(variants.wrongSdHash ? `${withoutKeyBinding}other~` : withoutKeyBinding),
  });
  return { presentation: `${withoutKeyBinding}${keyBinding}`, disclosedClaims };
}
