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

export type ClaimCheck = { ok: true; identityClaims: Record<string, string> } | { ok: false; missing: string[] };

const present = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

export function institutionalClaims(
  login: { subject: string; claims: Record<string, unknown> },
  serviceClaim: string,
  requiredClaims: readonly string[],
): ClaimCheck {
  const identityClaims: Record<string, string> = {};
  for (const name of [serviceClaim, EPPN_CLAIM, 'email']) {
    const value = login.claims[name];
    if (present(value)) identityClaims[name] = value;
  }
  const missing: string[] = [];
  if (!present(identityClaims[serviceClaim]) && !present(login.subject)) missing.push(`${serviceClaim} or sub`);
  for (const name of requiredClaims) {
    const value = name === 'sub' ? login.subject : login.claims[name];
    if (!present(value) && typeof value !== 'boolean' && typeof value !== 'number') missing.push(name);
  }
  return missing.length > 0 ? { ok: false, missing } : { ok: true, identityClaims };
}
