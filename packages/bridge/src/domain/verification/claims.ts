import type { ClaimPath, CredentialQuery } from '../queries.js';
import { isObjectValue } from './jws.js';

/** The value at a DCQL claims path (OID4VP §7.1): names select members, numbers elements, null every element. */
export function claimValue(source: unknown, path: ClaimPath): unknown {
  let nodes: unknown[] = [source];
  for (const segment of path) {
    const next: unknown[] = [];
    for (const node of nodes) {
      if (segment === null) {
        if (Array.isArray(node)) next.push(...node);
      } else if (typeof segment === 'number') {
        if (Array.isArray(node) && segment < node.length) next.push(node[segment]);
      } else if (isObjectValue(node) && Object.hasOwn(node, segment)) {
        next.push(node[segment]);
      }
    }
    nodes = next;
  }
  if (nodes.length === 0) return undefined;
  return path.includes(null) ? nodes : nodes[0];
}

/** The query's claims found in the credential, by claim name (the completion result's `claims`, 000 §2.3). */
export function presentedClaims(query: CredentialQuery, source: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const claim of query.claims) {
    const value = claimValue(source, claim.path);
    if (value !== undefined) out[claim.name] = value;
  }
  return out;
}

/** JSONPaths of the required claims the credential lacks. */
export function missingRequiredClaims(query: CredentialQuery, source: Record<string, unknown>): string[] {
  return query.claims
    .filter((c) => c.required && (claimValue(source, c.path) === undefined || claimValue(source, c.path) === null))
    .map((c) => c.jsonPath);
}
