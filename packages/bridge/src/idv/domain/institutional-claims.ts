import { EPPN_CLAIM } from '@tessera/identity';

/**
 * The claims of the institutional login (000 §2.4 "the service, eduperson_principal_name, email, sub"): the service
 * claim (platform `deployment.serviceClaim`), eppn and email become the identity's claims when present; `sub` goes
 * into the federation binding with the issuer. "At minimum the service or sub must be present"; a deployment may
 * demand more (`idv.requiredClaims`).
 */
export interface InstitutionalLogin {
  issuer: string;
  subject: string;
  acr: string | undefined;
  claims: Record<string, unknown>;
}

export type ClaimCheck = { ok: true; identityClaims: Record<string, unknown> } | { ok: false; missing: string[] };

const present = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * The institution's claims the identity keeps: those the token service keeps from a federated login (its
 * `federatedClaims`), so that a person reconciled through IDV and the same person signed in by federation carry one
 * set of claims (issue 14 §1), plus the configured identifying claims.
 */
const KEPT = ['email', 'email_verified', 'given_name', 'family_name', 'name', 'preferred_username'];

export function institutionalClaims(
  login: { subject: string; claims: Record<string, unknown> },
  serviceClaim: string,
  requiredClaims: readonly string[],
  identifyingClaims: readonly string[] = [],
): ClaimCheck {
  const identityClaims: Record<string, unknown> = {};
  for (const name of new Set([serviceClaim, EPPN_CLAIM, ...KEPT, ...identifyingClaims])) {
    const value = login.claims[name];
    if (present(value) || typeof value === 'boolean') identityClaims[name] = value;
  }
  const missing: string[] = [];
  if (!present(identityClaims[serviceClaim]) && !present(login.subject)) missing.push(`${serviceClaim} or sub`);
  for (const name of requiredClaims) {
    const value = name === 'sub' ? login.subject : login.claims[name];
    if (!present(value) && typeof value !== 'boolean' && typeof value !== 'number') missing.push(name);
  }
  return missing.length > 0 ? { ok: false, missing } : { ok: true, identityClaims };
}

export type ClaimsMatchMode = 'strict' | 'present' | 'off';

/**
 * Issue 14 §1: does the wallet credential name the person who signed in at the institution? Each identifying claim
 * the wallet presented is compared with the institution's (as text, exactly): `strict` also refuses a claim the
 * institution did not release, `present` compares only claims both carry, `off` compares nothing. Answers the names
 * that disagree (never their values).
 */
export function mismatchedClaims(
  presented: Record<string, unknown>,
  institutional: Record<string, unknown>,
  names: readonly string[],
  mode: ClaimsMatchMode,
): string[] {
  if (mode === 'off') return [];
  const text = (value: unknown) =>
    typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value).trim() : null;
  const mismatched: string[] = [];
  for (const name of names) {
    const wallet = text(presented[name]);
    if (wallet === null || wallet === '') continue;
    const institution = text(institutional[name]);
    if (institution === null || institution === '') {
      if (mode === 'strict') mismatched.push(name);
    } else if (institution !== wallet) mismatched.push(name);
  }
  return mismatched;
}
