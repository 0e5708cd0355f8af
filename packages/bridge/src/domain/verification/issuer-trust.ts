import type { JWK } from 'jose';
import type { TrustedIssuer } from '../queries.js';
import { didOf, resolveDidKey } from './did.js';
import { validateChain, type CheckTime } from './x509-chain.js';

/**
 * Issuer trust (000 §2.2 trusted_issuers; security checklist: "an issuer outside the trusted list is rejected
 * whatever it claims"). The verification key of a credential comes only from a trusted-issuer entry, never from
 * the credential itself: a DID entry resolves to the DID's key when `iss` (or the header kid) names that DID; a JWK
 * entry pins the key; an X.509 entry accepts the key of an x5c chain leading to the anchor.
 */
export type IssuerKeys =
  { ok: true; candidates: { jwk: JWK; issuer: TrustedIssuer }[] } | { ok: false; reason: string };

function parseJwk(value: string): JWK | null {
  try {
    const jwk = JSON.parse(value) as JWK;
    return typeof jwk === 'object' && jwk !== null && typeof jwk.kty === 'string' && !('d' in jwk) ? jwk : null;
  } catch {
    return null;
  }
}

export async function trustedIssuerKeys(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  trusted: readonly TrustedIssuer[],
  at: CheckTime,
): Promise<IssuerKeys> {
  const iss =
    typeof payload.iss === 'string'
      ? payload.iss
      : typeof payload.iss === 'object' &&
          payload.iss !== null &&
          typeof (payload.iss as { id?: unknown }).id === 'string'
        ? (payload.iss as { id: string }).id
        : undefined;
  const kid = typeof header.kid === 'string' ? header.kid : undefined;
  if (kid?.startsWith('did:') && iss?.startsWith('did:') && didOf(kid) !== iss)
    return { ok: false, reason: 'the header kid names another DID than iss' };
  const candidates: { jwk: JWK; issuer: TrustedIssuer }[] = [];
  const reasons: string[] = [];
  for (const entry of trusted) {
    if (entry.kind === 'did') {
      const named = iss === entry.value || (iss === undefined && kid !== undefined && didOf(kid) === entry.value);
      if (!named) continue;
      const jwk = resolveDidKey(entry.value);
      if (jwk) candidates.push({ jwk, issuer: entry });
      else reasons.push('the trusted DID cannot be resolved');
    } else if (entry.kind === 'jwk') {
      const jwk = parseJwk(entry.value);
      if (!jwk) continue;
      if (kid !== undefined && jwk.kid !== undefined && jwk.kid !== kid) continue;
      candidates.push({ jwk, issuer: entry });
    } else if (header.x5c !== undefined) {
      const chain = await validateChain(header.x5c, entry.value, iss, at, {
        ...(entry.extendedKeyUsage ? { extendedKeyUsage: entry.extendedKeyUsage } : {}),
      });
      if (chain.ok) candidates.push({ jwk: chain.leafJwk, issuer: entry });
      else reasons.push(chain.reason);
    }
  }
  if (candidates.length === 0)
    return { ok: false, reason: reasons[0] ?? 'the issuer is not in the trusted list of the query' };
  return { ok: true, candidates };
}
