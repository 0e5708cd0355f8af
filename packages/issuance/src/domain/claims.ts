import type { CredentialClaimsBinding } from './pipeline.js';

export type ClaimsResult =
  { complete: true; claims: Record<string, unknown> } | { complete: false; missing: string[]; deferrable: boolean };

/**
 * The claims of one credential configuration from the bag (001 §2.2 claimsBindings): each bound attribute path
 * becomes its claim path, dot notation read as nesting (`address.locality` → `{address: {locality}}`). A required
 * claim without its attribute makes the result incomplete (the missing claim paths are answered, nothing else);
 * an optional one is left out. `values`: the latest value of each attribute path present in the bag.
 */
export function buildClaims(binding: CredentialClaimsBinding, values: ReadonlyMap<string, unknown>): ClaimsResult {
  const missing = binding.claims.filter((c) => c.required && !values.has(c.attributePath)).map((c) => c.claimPath);
  if (missing.length > 0) return { complete: false, missing, deferrable: binding.deferrable };
  const claims: Record<string, unknown> = {};
  for (const c of binding.claims) {
    if (!values.has(c.attributePath)) continue;
    setPath(claims, c.claimPath.split('.'), values.get(c.attributePath));
  }
  return { complete: true, claims };
}

/** Keys that would reach an object's prototype are never written (a claim path is configuration, still checked). */
const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor']);

function setPath(target: Record<string, unknown>, segments: string[], value: unknown): void {
  let node = target;
  for (const [i, segment] of segments.entries()) {
    if (FORBIDDEN.has(segment) || segment === '') return;
    if (i === segments.length - 1) {
      node[segment] = value;
      return;
    }
    const next = node[segment];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
}
