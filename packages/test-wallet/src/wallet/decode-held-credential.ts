import { decodeJwt, type JWK } from 'jose';
import { toIssuedCredential, type CredentialFormat, type IssuedCredential } from '../common/credential-format.js';
import { createSdJwtTool } from './create-sd-jwt-tool.js';

/** A credential as the wallet reasons about it. */
export interface HeldCredential {
  format: CredentialFormat;
  raw: string;
  statusIndex?: number;
  issuer: string | undefined;
  /** SD-JWT VC `vct`. */
  vct?: string;
  /** W3C `type` values. */
  types?: string[];
  /**
   * The claims DCQL paths are evaluated against (OpenID4VP 1.0 §6.4 and Appendix B): for dc+sd-jwt the payload with
   * every Disclosure applied; for jwt_vc_json the credential (the `vc` claim), so paths start at `credentialSubject`.
   */
  claims: Record<string, unknown>;
  /** Holder key the credential is bound to: `cnf.jwk` (SD-JWT VC) or the subject DID (jwt_vc_json). */
  binding: { publicJwk: JWK } | { did: string } | undefined;
}

async function decodeSdJwtVc(credential: IssuedCredential): Promise<HeldCredential> {
  const [jwt = ''] = credential.raw.split('~');
  const payload = decodeJwt(jwt);
  let claims: Record<string, unknown>;
  try {
    claims = (await createSdJwtTool().getClaims(credential.raw)) as Record<string, unknown>;
  } catch {
    // A hostile credential (for example one with a Disclosure named `_sd`) may not decode; keep the plain payload.
    claims = { ...payload };
  }
  const cnf = payload['cnf'] as { jwk?: JWK } | undefined;
  return {
    format: 'dc+sd-jwt',
    raw: credential.raw,
    ...(credential.statusIndex !== undefined ? { statusIndex: credential.statusIndex } : {}),
    issuer: payload.iss,
    ...(typeof payload['vct'] === 'string' ? { vct: payload['vct'] } : {}),
    claims,
    binding: cnf?.jwk ? { publicJwk: cnf.jwk } : undefined,
  };
}

function decodeJwtVc(credential: IssuedCredential): HeldCredential {
  const payload = decodeJwt(credential.raw);
  const vc = (payload['vc'] ?? {}) as Record<string, unknown>;
  const subject = vc['credentialSubject'] as { id?: string } | undefined;
  const did = payload.sub ?? subject?.id;
  const types = Array.isArray(vc['type'])
    ? (vc['type'] as string[])
    : typeof vc['type'] === 'string'
      ? [vc['type']]
      : [];
  return {
    format: 'jwt_vc_json',
    raw: credential.raw,
    ...(credential.statusIndex !== undefined ? { statusIndex: credential.statusIndex } : {}),
    issuer: payload.iss,
    types,
    claims: vc,
    binding: did ? { did } : undefined,
  };
}

export async function decodeHeldCredential(credential: IssuedCredential | string): Promise<HeldCredential> {
  const issued = toIssuedCredential(credential);
  return issued.format === 'dc+sd-jwt' ? decodeSdJwtVc(issued) : decodeJwtVc(issued);
}
