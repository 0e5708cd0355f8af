import { decodeJwt, type JWK } from 'jose';
import { toIssuedCredential, type CredentialFormat, type IssuedCredential } from '../common/credential-format.js';
import { createSdJwtTool } from './create-sd-jwt-tool.js';
import { credentialIdOf, type ReceivedFrom, type StoredCredential } from './store-credentials.js';

/**
 * The status entry a credential carries: `status.status_list` (IETF Token Status List, SD-JWT VC) or
 * `credentialStatus` (W3C Bitstring Status List / StatusList2021). `uri` is the list's URL, `index` the entry.
 */
export interface StatusReference {
  uri: string;
  index: number;
  /** W3C `statusPurpose`, when given. */
  purpose?: string;
}

/** A credential as the wallet reasons about it. */
export interface HeldCredential {
  /** Short name of the credential in the wallet (`--credential <id>`). */
  id: string;
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
  /** The status entries the credential carries. */
  status: StatusReference[];
  /** Set when an OpenID4VCI issuer handed the credential to the wallet. */
  receivedFrom?: ReceivedFrom;
}

type Decodable = IssuedCredential & Partial<Pick<StoredCredential, 'id' | 'receivedFrom'>>;

function identity(credential: Decodable) {
  return {
    id: credential.id ?? credentialIdOf(credential.raw),
    ...(credential.receivedFrom ? { receivedFrom: credential.receivedFrom } : {}),
  };
}

/** IETF Token Status List §6.1 (`status.status_list {idx, uri}`). */
function tokenStatusOf(payload: Record<string, unknown>): StatusReference[] {
  const entry = (payload['status'] as { status_list?: { idx?: unknown; uri?: unknown } } | undefined)?.status_list;
  return entry && typeof entry.uri === 'string' && Number.isInteger(entry.idx)
    ? [{ uri: entry.uri, index: entry.idx as number }]
    : [];
}

/** W3C VC Data Model `credentialStatus`: one entry or a list (Bitstring Status List §2.1, StatusList2021). */
function w3cStatusOf(vc: Record<string, unknown>): StatusReference[] {
  const raw = vc['credentialStatus'];
  const entries = (Array.isArray(raw) ? raw : raw ? [raw] : []) as Array<Record<string, unknown>>;
  return entries.flatMap((entry) => {
    const uri = entry['statusListCredential'];
    const index = Number(entry['statusListIndex']);
    if (typeof uri !== 'string' || !Number.isInteger(index)) return [];
    const purpose = entry['statusPurpose'];
    return [{ uri, index, ...(typeof purpose === 'string' ? { purpose } : {}) }];
  });
}

async function decodeSdJwtVc(credential: Decodable): Promise<HeldCredential> {
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
    ...identity(credential),
    format: 'dc+sd-jwt',
    raw: credential.raw,
    ...(credential.statusIndex !== undefined ? { statusIndex: credential.statusIndex } : {}),
    issuer: payload.iss,
    ...(typeof payload['vct'] === 'string' ? { vct: payload['vct'] } : {}),
    claims,
    binding: cnf?.jwk ? { publicJwk: cnf.jwk } : undefined,
    status: tokenStatusOf(payload),
  };
}

function decodeJwtVc(credential: Decodable): HeldCredential {
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
    ...identity(credential),
    format: 'jwt_vc_json',
    raw: credential.raw,
    ...(credential.statusIndex !== undefined ? { statusIndex: credential.statusIndex } : {}),
    issuer: payload.iss,
    types,
    claims: vc,
    binding: did ? { did } : undefined,
    status: w3cStatusOf(vc),
  };
}

export async function decodeHeldCredential(credential: Decodable | string): Promise<HeldCredential> {
  const issued: Decodable = typeof credential === 'string' ? toIssuedCredential(credential) : credential;
  return issued.format === 'dc+sd-jwt' ? decodeSdJwtVc(issued) : decodeJwtVc(issued);
}
