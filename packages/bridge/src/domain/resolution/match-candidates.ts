import { secureRandomToken } from '@tessera/platform';

/**
 * Match confirmation (issue 14 §11; 000 §4.2 "submit ... for manual confirmation when a potential match needs user
 * confirmation"): the candidates attribute matching found, how each compares with what the wallet presented, and
 * what the holder is shown of each. Pure, apart from the random match ids.
 */

/** What the rule needs of an identity the identity store found by a presented attribute. */
export interface FoundIdentity {
  internalIdentityId: string;
  claims: Record<string, unknown>;
  bindings: { walletBound: boolean; federationBound: boolean };
}

/**
 * How an identity compares with the wallet's identifying claims (the service claim and eduperson_principal_name,
 * `idv.identifyingClaims`), one claim at a time:
 * - `agrees`: every identifying claim the wallet presented is held by the identity with the same value;
 * - `uncertain`: none disagrees, but the identity lacks at least one of them (it cannot confirm the match);
 * - `conflicts`: the identity holds another value for one of them (never offered: issue 14 §1 refuses such a
 *   binding through IDV too, `claims_mismatch`).
 */
export type Agreement = 'agrees' | 'uncertain' | 'conflicts';

export function agreementOf(
  identityClaims: Record<string, unknown>,
  presented: Record<string, unknown>,
  identifyingClaims: readonly string[],
): Agreement {
  let uncertain = false;
  for (const name of identifyingClaims) {
    const wallet = presented[name];
    if (typeof wallet !== 'string' || wallet === '') continue;
    const held = identityClaims[name];
    if (held === undefined || held === null || held === '') uncertain = true;
    else if (held !== wallet) return 'conflicts';
  }
  return uncertain ? 'uncertain' : 'agrees';
}

/** What the holder sees of one candidate: masked values of claims their own credential disclosed, nothing else. */
export interface CandidateDisplay {
  /** The identifier types by which it was found (SERVICE_ID, EPPN). */
  matchedOn: string[];
  /** Claim name → masked value; only claims the credential disclosed and the candidate holds. */
  claims: Record<string, string>;
  /** The configured display name of the institution, when the identity came from an institutional login. */
  institution: string | null;
}

/** A candidate as kept (sealed) on the session: the opaque id the holder sees, the identity it stands for. */
export interface MatchCandidate {
  matchId: string;
  identityId: string;
  display: CandidateDisplay;
}

/**
 * A fresh random id per candidate and session (128 bits, base64url): it names nothing outside this session, so an
 * id seen in one session is worthless in another and ids cannot be enumerated or linked to an identity.
 */
export const newMatchId = (): string => secureRandomToken(16);

/** The claims a candidate may show (in this order) when the credential disclosed them. */
export const displayClaimsOf = (identifyingClaims: readonly string[]): string[] => [
  ...new Set([...identifyingClaims, 'email']),
];

/**
 * The masking rule (README "Match confirmation"):
 * - e-mail-shaped values (one `@`): the first character of the local part, `***`, then `@` and the domain, which
 *   names the institution rather than the person (`alice@uni.example` → `a***@uni.example`);
 * - other values: `***` and the last two characters (`S-4711` → `***11`); six characters or fewer: `***` only.
 */
export function maskValue(value: string): string {
  const at = value.lastIndexOf('@');
  if (at > 0 && at === value.indexOf('@') && at < value.length - 1)
    return `${[...value.slice(0, at)][0]}***@${value.slice(at + 1)}`;
  const chars = [...value];
  return chars.length <= 6 ? '***' : `***${chars.slice(-2).join('')}`;
}

export function candidateDisplay(
  identity: FoundIdentity,
  matchedOn: readonly string[],
  presented: Record<string, unknown>,
  shownClaims: readonly string[],
  institutionName: string | null,
): CandidateDisplay {
  const claims: Record<string, string> = {};
  for (const name of shownClaims) {
    const disclosed = presented[name];
    const held = identity.claims[name];
    if (typeof disclosed !== 'string' || disclosed === '' || typeof held !== 'string' || held === '') continue;
    claims[name] = maskValue(held);
  }
  return {
    matchedOn: [...matchedOn],
    claims,
    institution: identity.bindings.federationBound ? institutionName : null,
  };
}

/** The candidates as the status answers them: the display and the opaque id, never the identity id. */
export const publicCandidates = (candidates: readonly MatchCandidate[]) =>
  candidates.map((c) => ({ matchId: c.matchId, ...c.display }));
