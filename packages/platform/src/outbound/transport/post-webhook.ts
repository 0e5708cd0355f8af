import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { FailureKind } from '../domain/delivery.js';
import { checkDestinationUrl, DestinationRefused, type UrlPolicy } from './destination-url.js';
import { keepAliveAgent } from './keep-alive-agents.js';
import { pinnedLookup } from './pinned-lookup.js';

export type PostOutcome =
  | { ok: true; status: number; body?: string }
  | { ok: false; kind: FailureKind; status: number | null; message: string; body?: string };

/**
 * `readBody`: keep the response body of a 2xx (up to `maxBytes`, UTF-8), for a synchronous request whose answer
 * matters (the issuance pipeline's connectors); a larger body fails as `network`. Absent: drained and dropped.
 */
export interface PostOptions extends UrlPolicy {
  timeoutMs: number;
  readBody?: { maxBytes: number };
  /** The user agent (default `tessera-webhooks`). */
  userAgent?: string;
  /** Content-Type of the body (default application/json). */
  contentType?: string;
  /**
   * Keep the first `maxBytes` of a 4xx answer's body (UTF-8) in the failure outcome, for a receiver that explains
   * a refusal (RFC 8935 §2.3 error responses of SET push); the rest is dropped. Absent: drained and dropped.
   */
  readErrorBody?: { maxBytes: number };
  /**
   * Reuse connections to the same host and port (keep-alive-agents.ts): the delivery loop sends many POSTs to one
   * receiver. A new connection still goes through the pinned lookup. Absent: one connection per request.
   */
  keepAlive?: boolean;
}

/**
 * One signed POST to a destination, with the SSRF rules of net/safe-fetch.ts applied at delivery time too: the
 * URL checked again, the host name resolved once by our own lookup, every address checked and the connection
 * made to the checked address (no DNS-rebinding second answer; with `keepAlive`, a reused connection is one that
 * was made so), no redirects followed, one deadline. The response
 * body is drained and dropped (never stored). safe-fetch itself only sends GETs, hence this sibling.
 */
export function postWebhook(
  target: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  options: PostOptions,
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
    const lookup = pinnedLookup(allowed);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': options.contentType ?? 'application/json',
        'content-length': String(payload.length),
        'user-agent': options.userAgent ?? 'tessera-webhooks',
      },
      lookup: lookup as never,
      agent: options.keepAlive ? keepAliveAgent(url.protocol, allowed) : false,
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
      const success = status >= 200 && status < 300;
      const limit = success ? options.readBody?.maxBytes : undefined;
      const errorLimit = !success && status >= 400 && status < 500 ? options.readErrorBody?.maxBytes : undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      if (errorLimit !== undefined)
        res.on('data', (chunk: Buffer) => {
          // An error body is only explained, never needed whole: what is past the limit is dropped.
          if (size < errorLimit) chunks.push(chunk.subarray(0, errorLimit - size));
          size += chunk.length;
        });
      else if (limit === undefined) res.resume();
      else
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) {
            finish({ ok: false, kind: 'network', status, message: `the response exceeds ${limit} bytes` });
            req.destroy();
            return;
          }
          chunks.push(chunk);
        });
      res.on('error', () => undefined);
      res.on('end', () =>
        // 2xx is success (Standard Webhooks); a redirect is not followed and counts as a failure.
        finish(
          success
            ? { ok: true, status, ...(limit === undefined ? {} : { body: Buffer.concat(chunks).toString('utf8') }) }
            : {
                ok: false,
                kind: 'http_status',
                status,
                message: `answered ${status}`,
                ...(errorLimit === undefined ? {} : { body: Buffer.concat(chunks).toString('utf8') }),
              },
        ),
      );
    });
    req.end(payload);
  });
}
