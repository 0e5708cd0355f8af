import type { JWK } from 'jose';
import { failWith, pass, type CheckResult } from './check.js';
import type { PresentationContext, StatusReference, VerifiedCredential } from './credential.js';
import { didOf, resolveDidKey } from './did.js';
import { trustedIssuerKeys } from './issuer-trust.js';
import { acceptedAlgorithm, decodeJws, isObjectValue, jwkThumbprintUri, verifyJws } from './jws.js';
import { freshnessProblem, validityProblem } from './validity.js';

/**
 * Verification of one jwt_vc_json presentation (OID4VP Appendix B.1.3.1; W3C VC-JWT 1.1 §3.2): a VP JWT signed by
 * the holder, with `aud` = client_id and `nonce` = the session nonce, holding one VC JWT signed by a trusted issuer
 * whose subject is the holder (the VC `sub` is the holder DID, or its `cnf.jwk` is the VP signing key). Throws
 * CheckFailure at the first failed check; `checks` receives every passed one.
 */
export async function verifyJwtVcPresentation(
  presentation: unknown,
  ctx: PresentationContext,
  checks: CheckResult[],
): Promise<VerifiedCredential> {
  const id = ctx.query.id;
  if (typeof presentation !== 'string')
    return failWith('format', 'the jwt_vc_json presentation is not a compact JWT', id);
  const vp = decodeJws(presentation);
  if (!vp) return failWith('format', 'the VP JWT cannot be decoded', id);
  // OID4VP B.1.3.1: the holder presents a VP; a bare VC proves no holder.
  if (vp.payload.vp === undefined && vp.payload.vc !== undefined)
    return failWith('holder_binding', 'a credential was presented without a verifiable presentation', id);
  const vpObject = vp.payload.vp;
  const embedded = isObjectValue(vpObject) ? vpObject.verifiableCredential : undefined;
  const list = Array.isArray(embedded) ? embedded : embedded === undefined ? [] : [embedded];
  if (list.length !== 1 || typeof list[0] !== 'string')
    return failWith('format', 'the VP must hold exactly one VC JWT', id);
  const vc = decodeJws(list[0]);
  if (!vc || !isObjectValue(vc.payload.vc)) return failWith('format', 'the VC JWT cannot be decoded', id);
  const vcObject = vc.payload.vc;
  const types = Array.isArray(vcObject.type)
    ? vcObject.type.filter((t): t is string => typeof t === 'string')
    : typeof vcObject.type === 'string'
      ? [vcObject.type]
      : [];
  if (!types.includes('VerifiableCredential'))
    failWith('format', 'the VC type does not include VerifiableCredential', id);
  checks.push(pass('format', id));

  const alg = vc.header.alg;
  if (!acceptedAlgorithm(alg))
    return failWith('signature', `the credential algorithm ${String(alg)} is not accepted`, id);
  const issuerPayload = { ...vc.payload, iss: vc.payload.iss ?? vcObject.issuer };
  const keys = await trustedIssuerKeys(vc.header, issuerPayload, ctx.query.trustedIssuers, {
    now: ctx.now,
    skewSeconds: ctx.clockSkewSeconds,
  });
  if (!keys.ok) return failWith('issuer_trust', keys.reason, id);
  checks.push(pass('issuer_trust', id));
  let signer: (typeof keys.candidates)[number] | undefined;
  for (const candidate of keys.candidates) {
    if (await verifyJws(list[0], candidate.jwk, alg)) {
      signer = candidate;
      break;
    }
  }
  if (!signer)
    return failWith('signature', 'the credential signature does not verify under the trusted issuer key', id);
  checks.push(pass('signature', id));

  if (!acceptedAlgorithm(vp.header.alg))
    return failWith('holder_binding', `the VP algorithm ${String(vp.header.alg)} is not accepted`, id);
  const holder = holderOf(vp.header, vp.payload);
  if (!holder) return failWith('holder_binding', 'the VP names no resolvable holder key (kid DID URL or jwk)', id);
  if (!(await verifyJws(presentation, holder.jwk, vp.header.alg)))
    failWith('holder_binding', 'the VP signature does not verify under the holder key', id);
  if (!(await boundToHolder(vc.payload, vcObject, holder)))
    failWith('holder_binding', 'the credential subject is not the presenting holder', id);
  const fresh = freshnessProblem(vp.payload.iat, ctx.now, ctx.kbJwtMaxAgeSeconds, ctx.clockSkewSeconds);
  if (fresh) failWith('holder_binding', `the VP JWT ${fresh}`, id);
  if (typeof vp.payload.exp === 'number' && ctx.now.getTime() / 1000 > vp.payload.exp + ctx.clockSkewSeconds)
    failWith('holder_binding', 'the VP JWT has expired', id);
  checks.push(pass('holder_binding', id));

  if (vp.payload.nonce !== ctx.nonce) failWith('nonce', 'the VP nonce is not the nonce of this session', id);
  checks.push(pass('nonce', id));
  const aud = vp.payload.aud;
  if (!(aud === ctx.clientId || (Array.isArray(aud) && aud.length === 1 && aud[0] === ctx.clientId)))
    failWith('audience', 'the VP aud is not the client_id of this verifier', id);
  checks.push(pass('audience', id));

  const validity = validityProblem(vc.payload, ctx.now, ctx.clockSkewSeconds, vcObject);
  if (validity) failWith('validity_period', validity, id);
  checks.push(pass('validity_period', id));

  return {
    credentialQueryId: id,
    format: 'jwt_vc_json',
    presentation,
    issuer: String(issuerPayload.iss ?? ''),
    issuerJwk: signer.jwk,
    trustedIssuer: signer.issuer,
    holderJwk: holder.jwk,
    dcql: { credential_format: 'jwt_vc_json', type: types, claims: vcObject, cryptographic_holder_binding: true },
    claimSource: vcObject,
    jwtPayload: vc.payload,
    statuses: bitstringStatusReferences(vcObject.credentialStatus, id),
  };
}

interface Holder {
  jwk: JWK;
  did: string | null;
}

function holderOf(header: Record<string, unknown>, payload: Record<string, unknown>): Holder | null {
  if (typeof header.kid === 'string' && header.kid.startsWith('did:')) {
    const did = didOf(header.kid);
    if (typeof payload.iss === 'string' && payload.iss !== did) return null;
    const jwk = resolveDidKey(did);
    return jwk ? { jwk, did } : null;
  }
  if (isObjectValue(header.jwk) && typeof header.jwk.kty === 'string' && !('d' in header.jwk)) {
    const did = typeof payload.iss === 'string' && payload.iss.startsWith('did:') ? payload.iss : null;
    if (did) {
      // A holder DID and a header key must agree.
      const resolved = resolveDidKey(did);
      if (!resolved || resolved.x !== header.jwk.x || resolved.y !== header.jwk.y || resolved.n !== header.jwk.n)
        return null;
    }
    return { jwk: header.jwk as JWK, did };
  }
  return null;
}

/** The VC is bound to the holder by its subject DID (VC-JWT `sub`, credentialSubject.id) or by its `cnf.jwk`. */
async function boundToHolder(
  payload: Record<string, unknown>,
  vc: Record<string, unknown>,
  holder: Holder,
): Promise<boolean> {
  const subject = isObjectValue(vc.credentialSubject) ? vc.credentialSubject.id : undefined;
  const subjectId = typeof payload.sub === 'string' ? payload.sub : typeof subject === 'string' ? subject : undefined;
  if (holder.did !== null && subjectId !== undefined && didOf(subjectId) === holder.did) return true;
  if (subjectId !== undefined && subjectId.startsWith('did:')) {
    const resolved = resolveDidKey(subjectId);
    if (resolved && (await jwkThumbprintUri(resolved)) === (await jwkThumbprintUri(holder.jwk))) return true;
  }
  const cnf = payload.cnf;
  if (isObjectValue(cnf) && isObjectValue(cnf.jwk))
    return (await jwkThumbprintUri(cnf.jwk as JWK)) === (await jwkThumbprintUri(holder.jwk));
  return false;
}

/** W3C Bitstring Status List §2.1 (BitstringStatusListEntry) and StatusList2021Entry; one entry per purpose. */
function bitstringStatusReferences(status: unknown, id: string): StatusReference[] {
  if (status === undefined) return [];
  const entries = Array.isArray(status) ? status : [status];
  if (entries.length === 0 || entries.length > 4)
    return failWith('status', 'the credentialStatus entries are malformed', id);
  return entries.map((entry) => bitstringStatusReference(entry, id));
}

function bitstringStatusReference(entry: unknown, id: string): StatusReference {
  if (!isObjectValue(entry) || !['BitstringStatusListEntry', 'StatusList2021Entry'].includes(String(entry.type))) {
    return failWith('status', 'the credentialStatus type is not supported', id);
  }
  const idx =
    typeof entry.statusListIndex === 'string' && /^\d{1,10}$/.test(entry.statusListIndex)
      ? Number(entry.statusListIndex)
      : Number.isInteger(entry.statusListIndex)
        ? (entry.statusListIndex as number)
        : -1;
  if (idx < 0 || typeof entry.statusListCredential !== 'string' || typeof entry.statusPurpose !== 'string') {
    return failWith('status', 'the credentialStatus entry is malformed', id);
  }
  return { kind: 'bitstring', uri: entry.statusListCredential, idx, purpose: entry.statusPurpose };
}
