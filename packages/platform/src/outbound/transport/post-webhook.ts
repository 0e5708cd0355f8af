import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isForbiddenAddress } from '../../net/address-policy.js';
import type { FailureKind } from '../domain/delivery.js';
import { checkDestinationUrl, DestinationRefused, type UrlPolicy } from './destination-url.js';

export type PostOutcome =
  { ok: true; status: number } | { ok: false; kind: FailureKind; status: number | null; message: string };

/**
 * One signed POST to a destination, with the SSRF rules of net/safe-fetch.ts applied at delivery time too: the
 * URL checked again, the host name resolved once by our own lookup, every address checked and the connection
 * made to the checked address (no DNS-rebinding second answer), no redirects followed, one deadline. The response
 * body is drained and dropped (never stored). safe-fetch itself only sends GETs, hence this sibling.
 */
export function postWebhook(
  target: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  options: UrlPolicy & { timeoutMs: number },
): Promise<PostOutcome> {
  let checked: { url: URL; allowed: boolean };
  try {
    checked = checkDestinationUrl(target, options);
  } catch (error) {
    return Promise.resolve({ ok: false, kind: 'refused', status: null, message: (error as Error).message });
  }
  const { url, allowed } = checked;
  const payload = Buffer.from(body, 'utf8');
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const lookup = (
      hostname: string,
      lookupOptions: { all?: boolean; family?: number },
      callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
    ) =>
      dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
        if (error) return callback(error, []);
        const list = addresses.filter((a) => !lookupOptions.family || a.family === lookupOptions.family);
        if (list.length === 0) return callback(new DestinationRefused('the host name does not resolve'), []);
        if (!allowed && list.some((a) => isForbiddenAddress(a.address)))
          return callback(new DestinationRefused('the host resolves to an address that is not public'), []);
        if (lookupOptions.all) return callback(null, list);
        return callback(null, list[0]!.address, list[0]!.family);
      });
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(payload.length),
        'user-agent': 'tessera-webhooks',
      },
      lookup: lookup as never,
      agent: false,
    });
    const timer = setTimeout(() => {
      finish({ ok: false, kind: 'timeout', status: null, message: 'the delivery timed out' });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (error) =>
      finish({
        ok: false,
        kind: error instanceof DestinationRefused ? 'refused' : 'network',
        status: null,
        message: error.message,
      }),
    );
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      res.on('error', () => undefined);
      res.on('end', () =>
        // 2xx is success (Standard Webhooks); a redirect is not followed and counts as a failure.
        finish(
          status >= 200 && status < 300
            ? { ok: true, status }
            : { ok: false, kind: 'http_status', status, message: `answered ${status}` },
        ),
      );
    });
    req.end(payload);
  });
}
