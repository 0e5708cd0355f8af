import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';

/**
 * Outbound fetches of documents named by presented credentials (status lists), refusing what a credential must
 * not make the server reach (security checklist "Fetching URLs"): loopback, private, link-local, CGNAT, multicast
 * and metadata addresses in any spelling (the WHATWG URL parser normalizes `2130706433` and `0x7f000001` to
 * 127.0.0.1; IPv4-mapped IPv6 is checked as IPv4), host names that resolve to them (checked at connection time, so
 * a rebinding resolver gains nothing), plain http, redirects, slow and oversized answers. Origins listed in
 * `allowPrivateOrigins` (development and test fixtures) skip the address and scheme rules, nothing else.
 */
export interface SafeFetchOptions {
  timeoutMs: number;
  maxBytes: number;
  allowPrivateOrigins: readonly string[];
  accept: string;
}

export class FetchRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchRefused';
  }
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

export async function safeFetchText(
  target: string,
  options: SafeFetchOptions,
): Promise<{ status: number; contentType: string; body: string }> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new FetchRefused('the URL is malformed');
  }
  if (url.username || url.password) throw new FetchRefused('credentials in the URL are refused');
  const allowed = options.allowPrivateOrigins.includes(url.origin);
  if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:'))
    throw new FetchRefused('only https URLs are fetched');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !allowed && isForbiddenAddress(host)) throw new FetchRefused('the address is not public');

  const lookup = (
    hostname: string,
    lookupOptions: object,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      if (!allowed && (list.length === 0 || list.some((a) => isForbiddenAddress(a.address))))
        return callback(new FetchRefused('the host resolves to an address that is not public'), []);
      if ((lookupOptions as { all?: boolean }).all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };

  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      { method: 'GET', headers: { accept: options.accept }, lookup: lookup as never },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.destroy();
          return reject(new FetchRefused('redirects are not followed'));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            res.destroy();
            req.destroy();
            reject(new FetchRefused('the response is too large'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            status,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new FetchRefused('the fetch timed out'));
    }, options.timeoutMs);
    req.on('error', (error) => reject(error));
    req.on('close', () => clearTimeout(timer));
    req.end();
  });
}
