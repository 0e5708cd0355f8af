import type { ReconciliationPlanType } from '../session.js';
import { agreementOf, type FoundIdentity } from './match-candidates.js';

/**
 * Identity resolution after VERIFIED (000 §2.1 reconciliationPlanType; §3.1 "idvRequired and
 * reconciliationPlanType are set"): an existing binding of the holder key wins; else, when configured, exactly one
 * identity matched by the presented attributes; else reconciliation through IDV. forceReconciliation forces IDV.
 * With match confirmation (issue 14 §11, README "Match confirmation"), matches that are not certain are offered to
 * the holder instead of going straight to IDV: CONFIRM_ATTRIBUTE_MATCH with the candidates.
 * Lookups are injected (the identity store, inside the caller's unit of work).
 */
export type AutoMatchAttribute = 'SERVICE_ID' | 'EPPN';

export interface IdentityLookup {
  byHolderKey(holderKey: string): Promise<{ internalIdentityId: string } | null>;
  byIdentifier(type: AutoMatchAttribute, value: string): Promise<FoundIdentity[]>;
}

/** A candidate of CONFIRM_ATTRIBUTE_MATCH: the identity and the identifier types that found it. */
export interface PlanCandidate {
  identity: FoundIdentity;
  matchedOn: AutoMatchAttribute[];
}

export interface Plan {
  type: ReconciliationPlanType;
  identityId: string | null;
  idvRequired: boolean;
  reason: string | null;
  /** Only for CONFIRM_ATTRIBUTE_MATCH. */
  candidates?: PlanCandidate[];
}

/** `identityResolution.matchConfirmation` (README "Match confirmation"). */
export interface MatchConfirmationRule {
  enabled: boolean;
  maxCandidates: number;
  /** The wallet claims compared with each candidate's (the IDV's `identifyingClaims`). */
  identifyingClaims: readonly string[];
}

export const REASONS = {
  forced: 'Reconciliation was requested for this session.',
  unknown: 'No identity is bound to this wallet and no identity matches its attributes.',
  ambiguous: 'Several identities match the presented attributes.',
  boundIdentityGone: 'The identity bound to this wallet no longer exists.',
  bindingConflict: 'The matched identity could not be bound to this wallet.',
  conflicting: 'The identity that matches the presented attributes disagrees with another of them.',
  tooMany: 'Too many identities match the presented attributes to offer a choice.',
  declined: 'The holder did not confirm any of the matching identities.',
} as const;

export const reconcile = (reason: string): Plan => ({
  type: 'RECONCILE_VIA_IDV',
  identityId: null,
  idvRequired: true,
  reason,
});

export async function resolvePlan(input: {
  holderKey: string;
  forceReconciliation: boolean;
  autoMatch: readonly AutoMatchAttribute[];
  /** Presented value of each identifier type (the service claim for SERVICE_ID, eduperson_principal_name for EPPN). */
  attributes: Partial<Record<AutoMatchAttribute, unknown>>;
  /** Every claim the wallet disclosed (compared with candidates when confirmation is on). */
  presented?: Record<string, unknown>;
  confirmation?: MatchConfirmationRule;
  lookup: IdentityLookup;
}): Promise<Plan> {
  if (input.forceReconciliation) return reconcile(REASONS.forced);
  const bound = await input.lookup.byHolderKey(input.holderKey);
  if (bound)
    return { type: 'USE_EXISTING_BINDING', identityId: bound.internalIdentityId, idvRequired: false, reason: null };
  const found = new Map<string, PlanCandidate>();
  let severalForOne = false;
  for (const type of input.autoMatch) {
    const value = input.attributes[type];
    if (typeof value !== 'string' || value === '') continue;
    const matches = await input.lookup.byIdentifier(type, value);
    if (matches.length > 1) severalForOne = true;
    for (const identity of matches) {
      const seen = found.get(identity.internalIdentityId);
      if (seen) seen.matchedOn.push(type);
      else found.set(identity.internalIdentityId, { identity, matchedOn: [type] });
    }
  }
  if (found.size === 0) return reconcile(REASONS.unknown);
  const confirmation = input.confirmation;
  if (!confirmation?.enabled) {
    // Without confirmation: exactly one identity, or IDV (the rule before issue 14 §11).
    if (severalForOne || found.size > 1) return reconcile(REASONS.ambiguous);
    const [only] = [...found.values()];
    return autoMatch(only!.identity.internalIdentityId);
  }
  return planWithConfirmation([...found.values()], input.presented ?? {}, confirmation);
}

/**
 * With confirmation on: one identity that agrees with every identifying claim the wallet presented is a certain
 * match (AUTO_MATCH_BY_ATTRIBUTE, as before). Otherwise (one identity that lacks one of them, or several identities)
 * the identities that do not disagree and hold no wallet yet are offered to the holder, up to `maxCandidates`. An
 * identity that already has a wallet has its holder: a confirmation, which rests on the holder's word, never adds a
 * second one (the IDV rule `already_bound`). None left, or too many: IDV.
 */
function planWithConfirmation(found: PlanCandidate[], presented: Record<string, unknown>, rule: MatchConfirmationRule) {
  const assessed = found.map((c) => ({
    ...c,
    agreement: agreementOf(c.identity.claims, presented, rule.identifyingClaims),
  }));
  if (assessed.length === 1 && assessed[0]!.agreement === 'agrees')
    return autoMatch(assessed[0]!.identity.internalIdentityId);
  const offered = assessed
    .filter((c) => c.agreement !== 'conflicts' && !c.identity.bindings.walletBound)
    .map(({ identity, matchedOn }) => ({ identity, matchedOn }));
  if (offered.length === 0) return reconcile(found.length > 1 ? REASONS.ambiguous : REASONS.conflicting);
  if (offered.length > rule.maxCandidates) return reconcile(REASONS.tooMany);
  return {
    type: 'CONFIRM_ATTRIBUTE_MATCH',
    identityId: null,
    idvRequired: false,
    reason: null,
    candidates: offered,
  } satisfies Plan;
}

const autoMatch = (identityId: string): Plan => ({
  type: 'AUTO_MATCH_BY_ATTRIBUTE',
  identityId,
  idvRequired: false,
  reason: null,
});

/** 000 §2.3 idvSteps: instructions for the user. */
export const IDV_STEPS = [
  'Sign in at your institution with your institutional account.',
  'Confirm that the wallet may be linked to that account.',
  'Return here: the sign-in then completes on its own.',
] as const;
