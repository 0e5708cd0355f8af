import { invalidRequest } from '@tessera/platform';

/**
 * BCP-47 language tags (RFC 5646): validated and canonicalized by `Intl.getCanonicalLocales`, so `de-ch` and
 * `de-CH` are one locale. Stored and compared in canonical form.
 */
export function canonicalLocale(tag: string, field: string): string {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    if (canonical === undefined) throw new RangeError('empty');
    return canonical;
  } catch {
    throw invalidRequest(`${field} is not a BCP-47 language tag.`, field);
  }
}

/** Tags seen in requests, canonicalized once (Intl.getCanonicalLocales is slow); bounded, oldest dropped first. */
const canonicalCache = new Map<string, string | null>();
const CACHE_LIMIT = 1000;

/** Canonical form, or null when the tag is not BCP-47 (request preferences: an unusable one is skipped). */
export function tryCanonicalLocale(tag: string): string | null {
  const cached = canonicalCache.get(tag);
  if (cached !== undefined) return cached;
  let canonical: string | null;
  try {
    canonical = Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    canonical = null;
  }
  if (canonicalCache.size >= CACHE_LIMIT) canonicalCache.delete(canonicalCache.keys().next().value!);
  canonicalCache.set(tag, canonical);
  return canonical;
}

/**
 * RFC 4647 §3.4 "Lookup": for each preferred tag in order, try it, then drop subtags from the right (a single-letter
 * subtag goes with the one after it), `de-CH-1996` → `de-CH` → `de`. The first available tag wins; without a
 * match, `fallback` (the design's default locale).
 */
export function lookupLocale(preferred: readonly string[], available: readonly string[], fallback: string | null) {
  const byLower = new Map(available.map((a) => [a.toLowerCase(), a]));
  for (const tag of preferred) {
    const subtags = tag.toLowerCase().split('-');
    while (subtags.length > 0) {
      const hit = byLower.get(subtags.join('-'));
      if (hit !== undefined) return hit;
      subtags.pop();
      if (subtags.length > 1 && subtags[subtags.length - 1]!.length === 1) subtags.pop();
    }
  }
  return fallback;
}
