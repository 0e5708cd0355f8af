import type { IdentifierType } from '../identity-store.js';

/**
 * Identifiers of the HMAC lookup index (000 §4.3, §5 "identifier confidentiality"). SERVICE_ID is the value of the
 * deployment's service claim (spec README: "the service"), EPPN that of eduperson_principal_name, KEY a wallet
 * holder key (JWK thumbprint or DID). Values are taken exactly as given: the lookup hash is computed over the
 * identifier's UTF-8 bytes, with no normalisation, by the external client as by us.
 */
export const IDENTIFIER_TYPES: readonly IdentifierType[] = ['KEY', 'SERVICE_ID', 'EPPN'];

export const EPPN_CLAIM = 'eduperson_principal_name';

/** base64url without padding of a 32-byte HMAC-SHA256 output: 43 characters. */
const LOOKUP_HASH = /^[A-Za-z0-9_-]{43}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type ClaimIdentifierType = Exclude<IdentifierType, 'KEY'>;

export interface ClaimIdentifier {
  type: ClaimIdentifierType;
  value: string;
}

export const isIdentifierType = (value: unknown): value is IdentifierType =>
  typeof value === 'string' && (IDENTIFIER_TYPES as readonly string[]).includes(value);

export const isLookupHash = (value: unknown): value is string => typeof value === 'string' && LOOKUP_HASH.test(value);

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

/** The claim-derived identifiers of an identity: a string (or a number, as its decimal text) that is not empty. */
export function claimIdentifiers(claims: Record<string, unknown>, serviceClaim: string): ClaimIdentifier[] {
  const found: ClaimIdentifier[] = [];
  const add = (type: ClaimIdentifierType, raw: unknown) => {
    const value = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
    if (typeof value === 'string' && value.length > 0) found.push({ type, value });
  };
  add('SERVICE_ID', claims[serviceClaim]);
  add('EPPN', claims[EPPN_CLAIM]);
  return found;
}

/**
 * What the federation index hashes for a (issuer, subject) pair: "issuer|subject" in an unambiguous form (a JSON
 * array), so that no issuer ending in "|x" can meet another issuer's subject starting with "x". Internal only: no
 * client computes it.
 */
export const federationSubjectKey = (issuer: string, subject: string): string => JSON.stringify([issuer, subject]);
