import type { ReconciliationPlanType } from '../session.js';

/**
 * Identity resolution after VERIFIED (000 §2.1 reconciliationPlanType; §3.1 "idvRequired and
 * reconciliationPlanType are set"): an existing binding of the holder key wins; else, when configured, exactly one
 * identity matched by the presented attributes; else reconciliation through IDV. forceReconciliation forces IDV.
 * Lookups are injected (the identity store, inside the caller's unit of work).
 */
export type AutoMatchAttribute = 'SERVICE_ID' | 'EPPN';

export interface IdentityLookup {
  byHolderKey(holderKey: string): Promise<{ internalIdentityId: string } | null>;
  byIdentifier(type: AutoMatchAttribute, value: string): Promise<{ internalIdentityId: string }[]>;
}

export interface Plan {
  type: ReconciliationPlanType;
  identityId: string | null;
  idvRequired: boolean;
  reason: string | null;
}

export const REASONS = {
  forced: 'Reconciliation was requested for this session.',
  unknown: 'No identity is bound to this wallet and no identity matches its attributes.',
  ambiguous: 'Several identities match the presented attributes.',
  boundIdentityGone: 'The identity bound to this wallet no longer exists.',
  bindingConflict: 'The matched identity could not be bound to this wallet.',
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
  lookup: IdentityLookup;
}): Promise<Plan> {
  if (input.forceReconciliation) return reconcile(REASONS.forced);
  const bound = await input.lookup.byHolderKey(input.holderKey);
  if (bound)
    return { type: 'USE_EXISTING_BINDING', identityId: bound.internalIdentityId, idvRequired: false, reason: null };
  const found = new Set<string>();
  for (const type of input.autoMatch) {
    const value = input.attributes[type];
    if (typeof value !== 'string' || value === '') continue;
    const matches = await input.lookup.byIdentifier(type, value);
    if (matches.length > 1) return reconcile(REASONS.ambiguous);
    if (matches.length === 1) found.add(matches[0]!.internalIdentityId);
  }
  if (found.size > 1) return reconcile(REASONS.ambiguous);
  const [identityId] = [...found];
  if (identityId) return { type: 'AUTO_MATCH_BY_ATTRIBUTE', identityId, idvRequired: false, reason: null };
  return reconcile(REASONS.unknown);
}

/** 000 §2.3 idvSteps: instructions for the user. */
export const IDV_STEPS = [
  'Sign in at your institution with your institutional account.',
  'Confirm that the wallet may be linked to that account.',
  'Return here: the sign-in then completes on its own.',
] as const;
