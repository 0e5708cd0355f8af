/**
 * `htu` handling (RFC 9449 §4.2, §4.3 point 9).
 *
 * The proof carries the target URI without query and fragment. Before comparing, both sides go through
 * syntax-based normalisation (RFC 3986 §6.2.2: lower-case scheme and host, upper-case percent-encoding hex digits,
 * decode percent-encoded unreserved characters, remove dot segments) and scheme-based normalisation (§6.2.3: drop
 * the default port, an empty path is "/"). The WHATWG URL parser does all but the percent-encoding steps.
 */

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

function normalizePercentEncoding(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/**
 * Normalised forms already computed: a server verifies proofs for a handful of endpoint URLs, so the URL parse
 * of the request URI and of the `htu` claim is done once per distinct string. The mapping is a pure function of
 * the string; the bounds (entries, emptied when full, and their length) keep client-chosen `htu` values from
 * growing it.
 */
const MAX_MEMO = 1024;
const MAX_MEMO_LENGTH = 512;
const memo = new Map<string, string | null>();

/** Normalised `scheme://host[:port]/path` of an absolute http(s) URL, without query and fragment; null otherwise. */
export function normalizeHttpUri(value: string | URL): string | null {
  const text = typeof value === 'string' ? value : value.href;
  const known = memo.get(text);
  if (known !== undefined) return known;
  const normalized = normalize(text);
  if (text.length > MAX_MEMO_LENGTH) return normalized;
  if (memo.size >= MAX_MEMO) memo.clear();
  memo.set(text, normalized);
  return normalized;
}

function normalize(text: string): string | null {
  if (!VISIBLE_ASCII.test(text)) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username !== '' || url.password !== '') return null;
  return `${url.protocol}//${url.host}${normalizePercentEncoding(url.pathname)}`;
}

/**
 * The `htu` a client puts in a proof for a request URL: the request URL without query and fragment (RFC 9449
 * §4.2), normalised so that the verifier's comparison does not depend on spelling.
 */
export function htuFor(httpUrl: string | URL): string {
  const htu = normalizeHttpUri(httpUrl);
  if (htu === null) throw new TypeError('httpUrl must be an absolute http or https URL without credentials');
  return htu;
}

/** A proof's `htu` claim must itself be query- and fragment-free (RFC 9449 §4.2); null when it is not usable. */
export function normalizeHtuClaim(htu: string): string | null {
  if (htu.includes('?') || htu.includes('#')) return null;
  return normalizeHttpUri(htu);
}
