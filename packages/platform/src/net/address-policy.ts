import { BlockList, isIP } from 'node:net';

/**
 * Which addresses an outbound fetch of a URL named by a caller (design import, status list, metadata) may reach
 * (security checklist "Fetching URLs"). Refused: loopback, private, link-local, CGNAT, multicast, broadcast,
 * unspecified, reserved and documentation ranges (IANA special-purpose registries, RFC 6890), which include the
 * cloud metadata addresses (169.254.169.254, 100.100.100.200, fd00:ec2::254). IPv6 is allowed only in global
 * unicast 2000::/3; an IPv6 address that carries an IPv4 address (mapped `::ffff:0:0/96`, translated
 * `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, Teredo `2001::/32` server and client) is judged by
 * that IPv4 address; the deprecated IPv4-compatible `::/96` (which holds `::` and `::1`) is refused whole.
 */
const IPV4_REFUSED: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT (holds 100.100.100.200, a metadata address)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (holds 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, 255.255.255.255 broadcast
];

const ipv4Refused = new BlockList();
for (const [net, prefix] of IPV4_REFUSED) ipv4Refused.addSubnet(net, prefix, 'ipv4');

/** IPv6 ranges inside 2000::/3 that are not reachable public unicast. */
const IPV6_REFUSED_GLOBAL: ReadonlyArray<readonly [string, number]> = [
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID
  ['2001:20::', 28], // ORCHIDv2
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
];

/** The 16 bytes of an IPv6 address in any textual form (RFC 4291 §2.2), zone id dropped. */
export function ipv6Bytes(address: string): Uint8Array | null {
  let text = address.split('%')[0]!;
  if (isIP(text) !== 6) return null;
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  let groups: string[];
  if (text.includes('::')) {
    const [head, tail] = text.split('::') as [string, string];
    const h = head === '' ? [] : head.split(':');
    const t = tail === '' ? [] : tail.split(':');
    groups = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  } else groups = text.split(':');
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = parseInt(g, 16);
    bytes[i * 2] = v >> 8;
    bytes[i * 2 + 1] = v & 0xff;
  });
  return bytes;
}

function inPrefix(bytes: Uint8Array, network: Uint8Array, prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit += 8) {
    const take = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (network[bit / 8]! & mask)) return false;
  }
  return true;
}

const net6 = (text: string) => ipv6Bytes(text)!;
const v4At = (b: Uint8Array, at: number, xor = 0) => [0, 1, 2, 3].map((i) => (b[at + i]! ^ xor) & 0xff).join('.');

const EMBEDDING: ReadonlyArray<{ net: Uint8Array; prefix: number; ipv4: (b: Uint8Array) => string[] }> = [
  { net: net6('::ffff:0:0'), prefix: 96, ipv4: (b) => [v4At(b, 12)] }, // IPv4-mapped
  { net: net6('::ffff:0:0:0'), prefix: 96, ipv4: (b) => [v4At(b, 12)] }, // IPv4-translated (RFC 2765)
  { net: net6('64:ff9b::'), prefix: 96, ipv4: (b) => [v4At(b, 12)] }, // NAT64 well-known prefix (RFC 6052)
  { net: net6('2002::'), prefix: 16, ipv4: (b) => [v4At(b, 2)] }, // 6to4 (RFC 3056)
  { net: net6('2001::'), prefix: 32, ipv4: (b) => [v4At(b, 4), v4At(b, 12, 0xff)] }, // Teredo server, client (RFC 4380)
];
const GLOBAL_UNICAST = net6('2000::');
const REFUSED_GLOBAL = IPV6_REFUSED_GLOBAL.map(([n, p]) => ({ net: net6(n), prefix: p }));

/** True when a fetch must not connect to this address (or when it is not an IP address at all). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address.split('%')[0]!);
  if (family === 4) return ipv4Refused.check(address, 'ipv4');
  if (family !== 6) return true;
  const bytes = ipv6Bytes(address)!;
  for (const e of EMBEDDING) if (inPrefix(bytes, e.net, e.prefix)) return e.ipv4(bytes).some(isForbiddenAddress);
  if (!inPrefix(bytes, GLOBAL_UNICAST, 3)) return true;
  return REFUSED_GLOBAL.some((r) => inPrefix(bytes, r.net, r.prefix));
}

/** Host names that are loopback by definition (RFC 6761 §6.3), refused before any resolution. */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === '';
}
