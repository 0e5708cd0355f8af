import type { Claim, ClaimLabel, DesignDocument, Display } from './records.js';
import { pathKey } from './normalize-design.js';

/**
 * Merging two layers of a design (resolve-design.ts): `top` wins member by member. Displays are matched by locale,
 * claims by path (their labels by locale); a claim only in `base` keeps its place.
 */
export function mergeDocuments(base: DesignDocument, top: Partial<DesignDocument>): DesignDocument {
  const displays = new Map<string, Display>(base.displays.map((d) => [d.locale, d]));
  for (const d of top.displays ?? []) displays.set(d.locale, { ...displays.get(d.locale), ...d });
  const claims = new Map<string, Claim>((base.claims ?? []).map((c) => [pathKey(c.path), c]));
  for (const c of top.claims ?? []) {
    const key = pathKey(c.path);
    const under = claims.get(key);
    claims.set(key, under ? { ...under, ...c, labels: mergeLabels(under.labels, c.labels) } : c);
  }
  const out: DesignDocument = { displays: [...displays.values()] };
  if (base.claims !== undefined || top.claims !== undefined) out.claims = [...claims.values()];
  const policyUri = top.policyUri ?? base.policyUri;
  if (policyUri !== undefined) out.policyUri = policyUri;
  const tos = top.termsOfServiceUri ?? base.termsOfServiceUri;
  if (tos !== undefined) out.termsOfServiceUri = tos;
  return out;
}

function mergeLabels(base: readonly ClaimLabel[], top: readonly ClaimLabel[]): ClaimLabel[] {
  const labels = new Map(base.map((l) => [l.locale, l]));
  for (const l of top) labels.set(l.locale, l);
  return [...labels.values()];
}
