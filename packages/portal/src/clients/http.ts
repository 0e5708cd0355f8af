import { AppError } from '@tessera/platform';

export interface JsonResponse {
  status: number;
  body: Record<string, unknown>;
}

export interface CallOptions {
  fetch: typeof fetch;
  timeoutSeconds: number;
  /** Name of the callee, for the error message (never the URL: it may carry a session id). */
  service: string;
  correlationId?: string | undefined;
}

/**
 * One service-to-service call with a bounded wait. An unreachable or slow service, or one answering 5xx, is
 * `service_unavailable` (the page says "try again"); every other answer goes back to the caller, which knows what
 * its status codes mean. Bodies are never logged: they carry claims and tokens.
 */
export async function callJson(url: string, init: RequestInit, options: CallOptions): Promise<JsonResponse> {
  const headers = new Headers(init.headers);
  headers.set('accept', 'application/json');
  if (options.correlationId) headers.set('x-correlation-id', options.correlationId);
  let res: Response;
  try {
    res = await options.fetch(url, {
      ...init,
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutSeconds * 1000),
    });
  } catch (cause) {
    throw new AppError('service_unavailable', `The ${options.service} is unreachable.`, { cause });
  }
  if (res.status >= 500) {
    await res.body?.cancel();
    throw new AppError('service_unavailable', `The ${options.service} failed.`, {
      cause: new Error(`status ${res.status}`),
    });
  }
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown> = {};
  if (text) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      // A non-JSON answer is judged by its status alone.
    }
  }
  return { status: res.status, body };
}

export const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
