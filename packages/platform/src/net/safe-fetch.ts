import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isForbiddenAddress, isLoopbackName } from './address-policy.js';

/**
 * Outbound GETs of URLs that callers name (design imports, status lists, metadata), refusing what such a URL must
 * not make the server reach (security checklist "Fetching URLs"; address-policy.ts):
 * - https only, unless `allowHttp` (the development profile) or the origin is allow-listed;
 * - the host as the WHATWG URL parser normalizes it (decimal, octal, hex and short IPv4, IDN, trailing dots all end
 *   up as the address they name), refused when an IP literal is forbidden or the name is `localhost`;
 * - a host name resolved once per connection by our own `lookup`, every address checked, and the connection made to
 *   the checked address (the request's `lookup` option), so a rebinding resolver has no second answer to give;
 * - redirects only when `maxRedirects` allows, each hop checked again from the start;
 * - one deadline for all hops, a size bound (Content-Length and bytes read), and the media type of a 200 checked.
 * Origins in `allowPrivateOrigins` (test and development fixtures) skip the scheme and address rules, nothing else.
 */
export interface SafeFetchOptions {
  timeoutMs: number;
  maxBytes: number;
  allowPrivateOrigins: readonly string[];
  accept: string;
  /** Plain http to public addresses (development only). */
  allowHttp?: boolean;
  /** Redirects followed (default 0: a redirect is refused). */
  maxRedirects?: number;
  /** Media types (no parameters, lower case) a 200 answer may have; any when absent. */
  contentTypes?: readonly string[];
  /** Extra request headers: conditional GET validators (`if-none-match`, `if-modified-since`). */
  headers?: Readonly<Record<string, string>>;
  /** Extra trust anchors (PEM) for https: test fixtures. */
  ca?: string | readonly string[];
  /** The resolver (default `dns.lookup`); tests give a stub. */
  resolve?: (hostname: string) => Promise<readonly LookupAddress[]>;
  /** The address policy (default isForbiddenAddress). */
  isForbidden?: (address: string) => boolean;
}

export interface SafeFetchResponse {
  status: number;
  /** The URL finally answered (after redirects). */
  url: string;
  contentType: string;
  etag: string | undefined;
  lastModified: string | undefined;
  /** The response headers, lower-case names (freshness: `cache-control`, `expires`). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Buffer;
}

export class FetchRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchRefused';
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const systemResolve = (hostname: string) =>
  new Promise<readonly LookupAddress[]>((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/** Parses and checks one hop's URL; answers whether its origin is allow-listed. */
function checkTarget(url: URL, options: SafeFetchOptions): boolean {
  if (url.username || url.password) throw new FetchRefused('credentials in the URL are refused');
  const allowed = options.allowPrivateOrigins.includes(url.origin);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (allowed || options.allowHttp === true)))
    throw new FetchRefused('only https URLs are fetched');
  if (allowed) return true;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const forbidden = options.isForbidden ?? isForbiddenAddress;
  if (isIP(host)) {
    if (forbidden(host)) throw new FetchRefused('the address is not public');
  } else if (isLoopbackName(host)) throw new FetchRefused('the address is not public');
  return false;
}

/** A `lookup` for the request that resolves once, checks every address and hands the connection only those. */
function pinnedLookup(options: SafeFetchOptions, allowed: boolean) {
  const resolve = options.resolve ?? systemResolve;
  const forbidden = options.isForbidden ?? isForbiddenAddress;
  return (
    hostname: string,
    lookupOptions: { all?: boolean; family?: number },
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname).then(
      (addresses) => {
        const list = addresses.filter((a) => !lookupOptions.family || a.family === lookupOptions.family);
        if (list.length === 0) return callback(new FetchRefused('the host name does not resolve'), []);
        if (!allowed && list.some((a) => forbidden(a.address)))
          return callback(new FetchRefused('the host resolves to an address that is not public'), []);
        if (lookupOptions.all) return callback(null, [...list]);
        return callback(null, list[0]!.address, list[0]!.family);
      },
      (error: Error) => callback(error, []),
    );
  };
}

function requestOnce(url: URL, options: SafeFetchOptions, allowed: boolean, deadline: number) {
  return new Promise<{ res: IncomingMessage; body: Buffer }>((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new FetchRefused('the fetch timed out'));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'GET',
      headers: { accept: options.accept, 'accept-encoding': 'identity', ...options.headers },
      lookup: pinnedLookup(options, allowed) as never,
      agent: false,
      ...(options.ca === undefined ? {} : { ca: options.ca as string | string[] }),
    });
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(new FetchRefused('the fetch timed out')), remaining);
    req.on('close', () => clearTimeout(timer));
    req.on('error', fail);
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status) || status === 304) {
        res.resume();
        settled = true;
        clearTimeout(timer);
        req.destroy();
        return resolve({ res, body: Buffer.alloc(0) });
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes)
        return fail(new FetchRefused('the response is too large'));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) return fail(new FetchRefused('the response is too large'));
        chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ res, body: Buffer.concat(chunks) });
      });
    });
    req.end();
  });
}

const mediaType = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase();

export async function safeFetch(target: string, options: SafeFetchOptions): Promise<SafeFetchResponse> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new FetchRefused('the URL is malformed');
  }
  const deadline = Date.now() + options.timeoutMs;
  const maxRedirects = options.maxRedirects ?? 0;
  for (let hop = 0; ; hop++) {
    const allowed = checkTarget(url, options);
    const { res, body } = await requestOnce(url, options, allowed, deadline);
    const status = res.statusCode ?? 0;
    if (REDIRECTS.has(status)) {
      if (hop >= maxRedirects)
        throw new FetchRefused(maxRedirects === 0 ? 'redirects are not followed' : 'too many redirects');
      const location = res.headers.location;
      if (!location) throw new FetchRefused('a redirect without a location');
      try {
        url = new URL(location, url);
      } catch {
        throw new FetchRefused('the redirect location is malformed');
      }
      continue;
    }
    const contentType = String(res.headers['content-type'] ?? '');
    if (status === 200 && options.contentTypes && !options.contentTypes.includes(mediaType(contentType)))
      throw new FetchRefused(`the content type ${mediaType(contentType) || '(none)'} is not accepted`);
    const header = (name: string) => {
      const v = res.headers[name];
      return typeof v === 'string' ? v : undefined;
    };
    return {
      status,
      url: url.toString(),
      contentType,
      etag: header('etag'),
      lastModified: header('last-modified'),
      headers: res.headers,
      body,
    };
  }
}

/** The text form for callers that read a document (the bridge's status lists). */
export async function safeFetchText(
  target: string,
  options: SafeFetchOptions,
): Promise<{
  status: number;
  contentType: string;
  body: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}> {
  const response = await safeFetch(target, options);
  return {
    status: response.status,
    contentType: response.contentType,
    body: response.body.toString('utf8'),
    headers: response.headers,
  };
}
