import type { ReconciliationClientConfig } from '../config.js';

/**
 * Per-client projection (000 §2.7, §5): only the claims and auxiliary categories of the client's projection ever
 * leave, whatever the caller asks for. Pure.
 */
export interface Projection {
  clientId: string;
  scopes: readonly string[];
  claims: ReadonlySet<string>;
  categories: ReadonlySet<string>;
}

export function projectionOf(clientId: string, client: ReconciliationClientConfig): Projection {
  return {
    clientId,
    scopes: [...client.scopes],
    claims: new Set(client['projected-claims']),
    categories: new Set(client['auxiliary-categories']),
  };
}

/** The projected claims, as a flat object (own properties only, never inherited ones). */
export function projectClaims(claims: Record<string, unknown>, projection: Projection): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of projection.claims) if (Object.hasOwn(claims, name)) out[name] = claims[name];
  return out;
}

/** The categories holding data that the client may see, sorted. */
export const projectCategories = (categories: readonly string[], projection: Projection): string[] =>
  categories.filter((c) => projection.categories.has(c)).sort();

export const categoryAllowed = (category: string, projection: Projection): boolean =>
  projection.categories.has(category);
