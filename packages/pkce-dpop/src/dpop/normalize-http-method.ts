/** An HTTP method is a token (RFC 9110 §9.1, §5.6.2). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The methods that fetch upper-cases whatever the caller's spelling (WHATWG Fetch, "normalize a method"). */
const NORMALIZED = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

/**
 * The `htm` a client puts in a proof (RFC 9449 §4.2): the request method as it goes on the wire. Methods are
 * case-sensitive (RFC 9110 §9.1); the six that fetch normalises are upper-cased the same way here.
 */
export function normalizeHttpMethod(method: string): string {
  if (!TOKEN.test(method)) throw new TypeError('httpMethod must be an HTTP method token');
  const upper = method.toUpperCase();
  return NORMALIZED.has(upper) ? upper : method;
}
