import type { LoadableInclude } from '../storage/views.js';
import { invalidField } from './errors.js';
import { INCLUDES, type Include } from './party-kinds.js';

const MAX_INCLUDES = INCLUDES.length;

/**
 * The `include` parameter (001 §4.4): comma-separated association names, flat (no paths such as members.members),
 * each one that the resource offers. Unknown or inapplicable names are refused (400 naming include), so that a
 * caller never silently gets less than asked.
 */
export function parseIncludes(raw: string | string[] | undefined, allowed: readonly Include[]): Include[] {
  if (raw === undefined) return [];
  const names = (Array.isArray(raw) ? raw : [raw])
    .flatMap((part) => part.split(','))
    .map((n) => n.trim())
    .filter((n) => n.length > 0);
  if (names.length > MAX_INCLUDES * 2) throw invalidField('include', 'include names too many associations.');
  const unique = [...new Set(names)];
  for (const name of unique)
    if (!(allowed as readonly string[]).includes(name))
      throw invalidField(
        'include',
        `include may name ${allowed.join(', ')}; not ${JSON.stringify(name.slice(0, 64))}.`,
      );
  return unique as Include[];
}

/** The includes that need a subquery (`specializations` is the typed fields, which the party row holds). */
export const loadable = (includes: readonly Include[]): LoadableInclude[] =>
  includes.filter((i): i is LoadableInclude => i !== 'specializations');
