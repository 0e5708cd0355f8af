/**
 * Redirect URIs are matched exactly, character for character (RFC 9700 §2.1, §4.1.3); the only variation is the
 * port of a loopback IP redirect URI, which native apps choose at run time (RFC 8252 §7.3, RFC 9700 §4.1.1), and
 * only for a client that is such an app (`loopbackPortMayVary`: a native or public client, issue 14 §2): a
 * confidential web client registered on a loopback address gets exactly its registered port.
 */
export function redirectUriMatches(
  registered: readonly string[],
  presented: string,
  options: { loopbackPortMayVary: boolean },
): boolean {
  if (registered.includes(presented)) return true;
  if (!options.loopbackPortMayVary) return false;
  let p: URL;
  try {
    p = new URL(presented);
  } catch {
    return false;
  }
  if (p.protocol !== 'http:' || (p.hostname !== '127.0.0.1' && p.hostname !== '[::1]')) return false;
  return registered.some((r) => {
    try {
      const u = new URL(r);
      // Compare everything but the port, on the exact registered text.
      if (u.protocol !== 'http:' || u.hostname !== p.hostname) return false;
      u.port = p.port;
      return u.href === p.href && presented === p.href;
    } catch {
      return false;
    }
  });
}
