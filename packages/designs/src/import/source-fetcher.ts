import { AppError, FetchRefused, safeFetch } from '@tessera/platform';

/**
 * The fetch of an import source (001 §4.1 "Import": through an SSRF-protected fetcher): the platform's safe fetch
 * (packages/platform/src/net) with the `designs.import` bounds. A conditional GET carries the snapshot's validators
 * (001 §3: "Snapshot re-fetch uses the stored ETag in a conditional GET").
 */
export interface SourceRequest {
  accept: string;
  contentTypes: readonly string[];
  etag?: string;
  lastModified?: string;
}

export interface SourceResponse {
  status: 200 | 304;
  url: string;
  contentType: string;
  etag: string | undefined;
  lastModified: string | undefined;
  body: Buffer;
}

export interface SourceFetcher {
  fetch(url: string, request: SourceRequest): Promise<SourceResponse>;
}

export interface SourceFetcherOptions {
  timeoutSeconds: number;
  maxResponseBytes: number;
  maxRedirects: number;
  allowPrivateNetworkOrigins: readonly string[];
  /** Plain http to public hosts: the development profile only. */
  allowHttp: boolean;
  /** Extra trust anchors (PEM): test fixtures. */
  ca?: string;
}

/** A source that cannot be used is the caller's input problem: 400 naming `sourceUrl`, never a 5xx. */
export const sourceUnusable = (reason: string) =>
  new AppError('invalid_request', `The source could not be used: ${reason}.`, { field: 'sourceUrl' });

export function createSourceFetcher(options: SourceFetcherOptions): SourceFetcher {
  return {
    async fetch(url, request) {
      const headers: Record<string, string> = {};
      if (request.etag !== undefined) headers['if-none-match'] = request.etag;
      if (request.lastModified !== undefined) headers['if-modified-since'] = request.lastModified;
      let response;
      try {
        response = await safeFetch(url, {
          timeoutMs: options.timeoutSeconds * 1000,
          maxBytes: options.maxResponseBytes,
          maxRedirects: options.maxRedirects,
          allowPrivateOrigins: options.allowPrivateNetworkOrigins,
          allowHttp: options.allowHttp,
          accept: request.accept,
          contentTypes: request.contentTypes,
          headers,
          ...(options.ca === undefined ? {} : { ca: options.ca }),
        });
      } catch (error) {
        if (error instanceof FetchRefused) throw sourceUnusable(error.message);
        const code = (error as { code?: unknown }).code;
        throw sourceUnusable(typeof code === 'string' ? `the connection failed (${code})` : 'the connection failed');
      }
      if (response.status !== 200 && response.status !== 304)
        throw sourceUnusable(`the source answered HTTP ${response.status}`);
      return { ...response, status: response.status };
    },
  };
}
