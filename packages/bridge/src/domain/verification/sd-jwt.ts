import type { JWK } from 'jose';
import { failWith, pass, type CheckResult } from './check.js';
import type { PresentationContext, StatusReference, VerifiedCredential } from './credential.js';
import { processDisclosures } from './disclosures.js';
import { resolveDidKey } from './did.js';
import { trustedIssuerKeys } from './issuer-trust.js';
import { acceptedAlgorithm, decodeJws, isObjectValue, sha256Base64url, verifyJws } from './jws.js';
import { freshnessProblem, validityProblem } from './validity.js';

/**
 * Verification of one dc+sd-jwt presentation (SD-JWT VC; RFC 9901 §7.1 and §7.3; OID4VP Appendix B.3.6): issuer
 * trust and signature, the disclosures (disclosures.ts), the key-binding JWT required by policy (typ kb+jwt, alg,
 * signature by cnf.jwk, sd_hash, iat window), its nonce and aud (not checked by @sd-jwt 0.19), the validity
 * period, and the status reference for the status check. Throws CheckFailure at the first failed check; `checks`
 * receives every passed one.
 */
const SD_JWT_TYP = ['dc+sd-jwt', 'vc+sd-jwt'];

export async function verifySdJwtPresentation(
  presentation: string,
  ctx: PresentationContext,
  checks: CheckResult[],
): Promise<VerifiedCredential> {
  const id = ctx.query.id;
  const parts = presentation.split('~');
  if (parts.length < 2 || parts.slice(1, -1).some((d) => d === ''))
    failWith('format', 'the presentation is not an SD-JWT (issuer JWT~disclosures~key-binding JWT)', id);
  const [issuerJwt, ...rest] = parts;
  const kbJwt = rest.pop()!;
  const disclosures = rest;
  const issued = decodeJws(issuerJwt!);
  if (!issued) return failWith('format', 'the issuer-signed JWT cannot be decoded', id);
  if (!SD_JWT_TYP.includes(String(issued.header.typ)))
    failWith('format', 'the issuer-signed JWT typ is not dc+sd-jwt', id);
  if (typeof issued.payload.vct !== 'string') failWith('format', 'the credential has no vct', id);
  if (issued.payload._sd_alg !== undefined && issued.payload._sd_alg !== 'sha-256')
    failWith('format', 'the disclosure digest algorithm is not sha-256', id);
  checks.push(pass('format', id));

  const alg = issued.header.alg;
  if (!acceptedAlgorithm(alg))
    return failWith('signature', `the credential algorithm ${String(alg)} is not accepted`, id);
  const keys = await trustedIssuerKeys(issued.header, issued.payload, ctx.query.trustedIssuers, {
    now: ctx.now,
    skewSeconds: ctx.clockSkewSeconds,
  });
  if (!keys.ok) return failWith('issuer_trust', keys.reason, id);
  checks.push(pass('issuer_trust', id));
  let signer: (typeof keys.candidates)[number] | undefined;
  for (const candidate of keys.candidates) {
    if (await verifyJws(issuerJwt!, candidate.jwk, alg)) {
      signer = candidate;
      break;
    }
  }
  if (!signer)
    return failWith('signature', 'the credential signature does not verify under the trusted issuer key', id);
  checks.push(pass('signature', id));

  const disclosed = processDisclosures(issued.payload, disclosures);
  if (!disclosed.ok) return failWith('disclosures', disclosed.reason, id);
  checks.push(pass('disclosures', id));

  // RFC 9901 §7.3: the key-binding JWT is required by policy, not by its presence.
  if (kbJwt === '') return failWith('holder_binding', 'the presentation has no key-binding JWT', id);
  const kb = decodeJws(kbJwt);
  if (!kb) return failWith('holder_binding', 'the key-binding JWT cannot be decoded', id);
  if (kb.header.typ !== 'kb+jwt') failWith('holder_binding', 'the key-binding JWT typ is not kb+jwt', id);
  if (!acceptedAlgorithm(kb.header.alg))
    failWith('holder_binding', `the key-binding JWT algorithm ${String(kb.header.alg)} is not accepted`, id);
  const holderJwk = holderKeyOf(issued.payload.cnf);
  if (!holderJwk) return failWith('holder_binding', 'the credential carries no holder key (cnf)', id);
  if (!(await verifyJws(kbJwt, holderJwk, kb.header.alg as string)))
    failWith('holder_binding', 'the key-binding JWT signature does not verify under the holder key', id);
  // The issuer-signed JWT and the disclosures, each followed by its '~': the presentation up to its key-binding JWT.
  const presented = presentation.slice(0, presentation.length - kbJwt.length);
  if (kb.payload.sd_hash !== sha256Base64url(presented))
    failWith('holder_binding', 'the key-binding JWT sd_hash does not match the presentation', id);
  const fresh = freshnessProblem(kb.payload.iat, ctx.now, ctx.kbJwtMaxAgeSeconds, ctx.clockSkewSeconds);
  if (fresh) failWith('holder_binding', `the key-binding JWT ${fresh}`, id);
  checks.push(pass('holder_binding', id));

  if (kb.payload.nonce !== ctx.nonce)
    failWith('nonce', 'the key-binding JWT nonce is not the nonce of this session', id);
  checks.push(pass('nonce', id));
  if (kb.payload.aud !== ctx.clientId)
    failWith('audience', 'the key-binding JWT aud is not the client_id of this verifier', id);
  checks.push(pass('audience', id));

  const validity = validityProblem(issued.payload, ctx.now, ctx.clockSkewSeconds);
  if (validity) failWith('validity_period', validity, id);
  checks.push(pass('validity_period', id));

  const claims = disclosed.claims;
  return {
    credentialQueryId: id,
    format: 'dc+sd-jwt',
    presentation,
    issuer: String(issued.payload.iss ?? ''),
    issuerJwk: signer.jwk,
    trustedIssuer: signer.issuer,
    holderJwk,
    dcql: { credential_format: 'dc+sd-jwt', vct: issued.payload.vct, claims, cryptographic_holder_binding: true },
    claimSource: claims,
    jwtPayload: claims,
    statuses: tokenStatusReference(claims.status, id),
  };
}

/** SD-JWT VC §3.2.2.2 cnf: a public JWK, or a DID URL in `kid` (did:jwk, did:key). */
export function holderKeyOf(cnf: unknown): JWK | null {
  if (!isObjectValue(cnf)) return null;
  if (isObjectValue(cnf.jwk) && typeof cnf.jwk.kty === 'string' && !('d' in cnf.jwk)) return cnf.jwk as JWK;
  if (typeof cnf.kid === 'string' && cnf.kid.startsWith('did:')) return resolveDidKey(cnf.kid);
  return null;
}

/** Token Status List §6.2: `status.status_list` with `idx` and `uri`; anything malformed fails the format. */
function tokenStatusReference(status: unknown, id: string): StatusReference[] {
  if (status === undefined) return [];
  const list = isObjectValue(status) ? status.status_list : undefined;
  if (!isObjectValue(list) || !Number.isInteger(list.idx) || (list.idx as number) < 0 || typeof list.uri !== 'string') {
    return failWith('status', 'the status reference of the credential is malformed', id);
  }
  return [{ kind: 'token_status_list', uri: list.uri, idx: list.idx as number }];
}
