import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import type { JWK } from 'jose';
import type { CredentialConfiguration } from '../config.js';
import type { IssuerKeys } from './issuer-keys.js';

export interface IssueInput {
  tenantId: string;
  credentialIssuer: string;
  configuration: CredentialConfiguration;
  claims: Record<string, unknown>;
  holderJwk: JWK;
  status: Record<string, unknown>;
  now: Date;
}

/**
 * The disclosure frame (SD-JWT §4.2): every configured claim selectively disclosable unless the configuration says
 * otherwise; a nested claim (`address.locality`) is disclosable inside its object.
 */
export function disclosureFrame(configuration: CredentialConfiguration, claims: Record<string, unknown>) {
  const frame: Record<string, unknown> = {};
  for (const claim of configuration.claims) {
    if (!claim.selectivelyDisclosable) continue;
    const parts = claim.path.split('.');
    let node = frame;
    let value: unknown = claims;
    for (const [i, part] of parts.entries()) {
      value = (value as Record<string, unknown> | undefined)?.[part];
      if (value === undefined) break;
      if (i === parts.length - 1) {
        node._sd = [...((node._sd as string[] | undefined) ?? []), part];
      } else {
        node = (node[part] ??= {}) as Record<string, unknown>;
      }
    }
  }
  return frame;
}

/**
 * An SD-JWT VC (draft-ietf-oauth-sd-jwt-vc §3): typ `dc+sd-jwt`, `iss` = the credential issuer (its keys at
 * `/.well-known/jwt-vc-issuer`), `vct`, `iat`, `exp`, `cnf.jwk` = the proof's key, `status.status_list`. Signed by
 * the key manager with the tenant's issuer key through @sd-jwt's signer callback.
 */
export async function issueSdJwtVc(keys: IssuerKeys, input: IssueInput): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const jwk = await keys.publicJwk(input.tenantId);
    let signedKid: string | undefined;
    const sdjwt = new SDJwtVcInstance({
      hasher: digest,
      hashAlg: 'sha-256',
      saltGenerator: generateSalt,
      signAlg: 'ES256',
      signer: async (data: string) => {
        const signature = await keys.sign(input.tenantId, new TextEncoder().encode(data));
        signedKid = signature.kid;
        return Buffer.from(signature.signature).toString('base64url');
      },
    });
    const iat = Math.floor(input.now.getTime() / 1000);
    const payload = {
      ...input.claims,
      iss: input.credentialIssuer,
      iat,
      exp: iat + input.configuration.validitySeconds,
      vct: input.configuration.vct!,
      cnf: { jwk: input.holderJwk },
      ...input.status,
    };
    const credential = await sdjwt.issue(payload, disclosureFrame(input.configuration, input.claims) as never, {
      header: { typ: 'dc+sd-jwt', kid: jwk.kid },
    });
    // The key rotated between reading its kid and signing: issue again under the new one.
    if (signedKid === jwk.kid) return credential;
  }
  throw new Error('The issuer key kept changing while the credential was signed.');
}
