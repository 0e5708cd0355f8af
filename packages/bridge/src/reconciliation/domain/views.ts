import type { IdentityRecord } from '@tessera/identity';
import { projectCategories, projectClaims, type Projection } from './projection.js';

/** The identity data of 000 §2.5 as one client may see it (projected claims and categories). Pure. */
export interface IdentitySummaryView {
  internalIdentityId: string;
  claims: Record<string, unknown>;
  auxiliaryCategories: string[];
  assurance: { acr: string; amr: string[] };
}

export interface IdentityView extends IdentitySummaryView {
  bindings: { walletBound: boolean; federationBound: boolean; lastAuthenticatedAt: string | null };
}

/** POST /lookup: internalIdentityId, claims, auxiliaryCategories, assurance. */
export function summaryView(
  identity: IdentityRecord,
  categories: readonly string[],
  projection: Projection,
): IdentitySummaryView {
  return {
    internalIdentityId: identity.internalIdentityId,
    claims: projectClaims(identity.claims, projection),
    auxiliaryCategories: projectCategories(categories, projection),
    assurance: { acr: identity.assurance.acr, amr: [...identity.assurance.amr] },
  };
}

/** GET /{internalIdentityId}: the summary and the bindings. */
export function identityView(
  identity: IdentityRecord,
  categories: readonly string[],
  projection: Projection,
): IdentityView {
  const { walletBound, federationBound, lastAuthenticatedAt } = identity.bindings;
  return {
    ...summaryView(identity, categories, projection),
    bindings: { walletBound, federationBound, lastAuthenticatedAt },
  };
}
