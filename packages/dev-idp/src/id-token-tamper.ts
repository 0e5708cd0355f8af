import { SignJWT, decodeJwt, decodeProtectedHeader, type JWTHeaderParameters } from 'jose';
import { generateSigningKey, type SigningKey } from './keys.js';
import type { Behaviour } from './types.js';

export type TamperBehaviour = Extract<
  Behaviour,
  'wrong_nonce' | 'wrong_audience' | 'wrong_issuer' | 'expired_id_token' | 'bad_signature'
>;

export const TAMPER_BEHAVIOURS: ReadonlySet<Behaviour> = new Set<TamperBehaviour>([
  'wrong_nonce',
  'wrong_audience',
  'wrong_issuer',
  'expired_id_token',
  'bad_signature',
]);

/**
 * Rewrites an ID token that oidc-provider issued, to give relying parties each kind of invalid ID token that
 * OpenID Connect Core 3.1.3.7 tells them to reject. The changed claims are signed with the provider's own key,
 * so only the changed check fails; `bad_signature` signs the unchanged claims with a stranger key under the
 * same `kid`.
 */
export class IdTokenTamperer {
  private stranger: Promise<SigningKey> | undefined;

  constructor(private readonly key: SigningKey) {}

  async tamper(idToken: string, behaviour: TamperBehaviour): Promise<string> {
    const header = decodeProtectedHeader(idToken) as JWTHeaderParameters;
    const claims = decodeJwt(idToken);
    let signingKey = this.key;
    switch (behaviour) {
      case 'wrong_nonce':
        claims.nonce = 'a-nonce-the-client-never-sent';
        break;
      case 'wrong_audience':
        claims.aud = 'some-other-client';
        break;
      case 'wrong_issuer':
        claims.iss = 'https://impostor.example';
        break;
      case 'expired_id_token': {
        // Relative to the issue time oidc-provider chose, so no clock is read here.
        const iat = claims.iat ?? 0;
        claims.iat = iat - 7200;
        claims.exp = iat - 3600;
        break;
      }
      case 'bad_signature':
        this.stranger ??= generateSigningKey();
        signingKey = await this.stranger;
        break;
    }
    return new SignJWT(claims).setProtectedHeader(header).sign(signingKey.privateKey);
  }
}
