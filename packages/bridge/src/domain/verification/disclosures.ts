import { sha256Base64url, isObjectValue } from './jws.js';

/**
 * Processing of SD-JWT disclosures (RFC 9901 §7.1 steps 3-5), done here rather than by @sd-jwt/core, which drops an
 * unreferenced or tampered disclosure silently. Refused: a disclosure that is not a JSON array of 2 or 3 elements; a
 * disclosure named `_sd` or `...`; the same disclosure twice; the same digest twice in the payload; a disclosed name
 * that already exists in its object; an object disclosure referenced from an array or the reverse; and any
 * disclosure that no digest of the payload (or of another disclosure) references.
 */
export type DisclosureResult = { ok: true; claims: Record<string, unknown> } | { ok: false; reason: string };

interface Disclosure {
  digest: string;
  name: string | null;
  value: unknown;
  used: boolean;
}

class DisclosureError extends Error {}

function decodeDisclosure(encoded: string): Disclosure {
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) throw new DisclosureError('a disclosure is not base64url');
  let array: unknown;
  try {
    array = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    throw new DisclosureError('a disclosure is not JSON');
  }
  if (!Array.isArray(array) || (array.length !== 2 && array.length !== 3) || typeof array[0] !== 'string') {
    throw new DisclosureError('a disclosure is not an array of salt, (name,) value');
  }
  const name = array.length === 3 ? array[1] : null;
  if (array.length === 3 && typeof name !== 'string') throw new DisclosureError('a disclosure name is not a string');
  if (name === '_sd' || name === '...') throw new DisclosureError(`a disclosure is named ${name}`);
  return { digest: sha256Base64url(encoded), name, value: array.length === 3 ? array[2] : array[1], used: false };
}

/**
 * One pass over a credential's payload: the digests met so far and the disclosures by digest. Methods rather than
 * closures made per presentation (each closure is named at run time under the TypeScript runner, at some cost).
 */
class DisclosureWalk {
  private readonly seenDigests = new Set<string>();

  constructor(private readonly byDigest: Map<string, Disclosure>) {}

  private claim(digest: unknown): Disclosure | undefined {
    if (typeof digest !== 'string') throw new DisclosureError('a digest is not a string');
    if (this.seenDigests.has(digest)) throw new DisclosureError('a digest appears twice in the credential');
    this.seenDigests.add(digest);
    const d = this.byDigest.get(digest);
    if (d) {
      if (d.used) throw new DisclosureError('a disclosure is referenced twice');
      d.used = true;
    }
    return d;
  }

  walk(node: unknown, depth: number): unknown {
    if (depth > 32) throw new DisclosureError('the credential is nested too deeply');
    if (Array.isArray(node)) {
      const out: unknown[] = [];
      for (const element of node) {
        if (isObjectValue(element) && '...' in element) {
          if (Object.keys(element).length !== 1) throw new DisclosureError('an array digest object has other members');
          const d = this.claim(element['...']);
          if (!d) continue; // a decoy digest (RFC 9901 §4.2.5)
          if (d.name !== null) throw new DisclosureError('an object disclosure is referenced from an array');
          out.push(this.walk(d.value, depth + 1));
        } else {
          out.push(this.walk(element, depth + 1));
        }
      }
      return out;
    }
    if (!isObjectValue(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '_sd' || (depth === 0 && key === '_sd_alg')) continue;
      out[key] = this.walk(value, depth + 1);
    }
    if (node._sd !== undefined) {
      if (!Array.isArray(node._sd)) throw new DisclosureError('_sd is not an array');
      for (const digest of node._sd) {
        const d = this.claim(digest);
        if (!d) continue;
        if (d.name === null) throw new DisclosureError('an array disclosure is referenced from an object');
        if (Object.hasOwn(out, d.name)) throw new DisclosureError('a disclosed claim already exists in its object');
        out[d.name] = this.walk(d.value, depth + 1);
      }
    }
    return out;
  }
}

export function processDisclosures(
  payload: Record<string, unknown>,
  encodedDisclosures: readonly string[],
): DisclosureResult {
  try {
    const byDigest = new Map<string, Disclosure>();
    for (const encoded of encodedDisclosures) {
      const d = decodeDisclosure(encoded);
      if (byDigest.has(d.digest)) throw new DisclosureError('the same disclosure is presented twice');
      byDigest.set(d.digest, d);
    }
    const claims = new DisclosureWalk(byDigest).walk(payload, 0) as Record<string, unknown>;
    // Disclosures disclosed inside other disclosures have been reached by now: anything left is unreferenced.
    for (const d of byDigest.values())
      if (!d.used) throw new DisclosureError('a disclosure is not referenced by the credential (tampered or foreign)');
    return { ok: true, claims };
  } catch (error) {
    if (error instanceof DisclosureError) return { ok: false, reason: error.message };
    throw error;
  }
}
