import { invalidRequest } from '@tessera/platform';
import type { Assurance } from '../identity-store.js';

/** Input checks of the store: what a caller hands in must be what the table expects (000 §2.5). */
export function assertText(value: unknown, field: string): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048)
    throw invalidRequest(`${field} must be a non-empty string of at most 2048 characters.`, field);
}

/** Claims are a flat JSON object (000 §2.5); nested values are kept as they are, but the top level is an object. */
export function assertClaims(claims: unknown): asserts claims is Record<string, unknown> {
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims))
    throw invalidRequest('claims must be an object.', 'claims');
}

export function assertAssurance(assurance: unknown): asserts assurance is Assurance {
  const a = assurance as Partial<Assurance> | null;
  if (!a || typeof a.acr !== 'string' || a.acr.length === 0)
    throw invalidRequest('assurance.acr must be a non-empty string.', 'assurance.acr');
  if (!Array.isArray(a.amr) || !a.amr.every((m) => typeof m === 'string'))
    throw invalidRequest('assurance.amr must be an array of strings.', 'assurance.amr');
}
