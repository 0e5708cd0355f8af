import type { IncomingMessage } from 'node:http';

/** A login form holds two short fields; anything larger is not a person typing. */
export const FORM_LIMIT_BYTES = 8 * 1024;

export class FormBodyError extends Error {
  constructor(
    readonly status: 413 | 415,
    message: string,
  ) {
    super(message);
    this.name = 'FormBodyError';
  }
}

/**
 * Reads an `application/x-www-form-urlencoded` body from the raw request. oidc-provider parses bodies only on its
 * own routes, so the interaction routes read theirs here, bounded before and while reading.
 */
export async function readUrlEncodedForm(
  req: IncomingMessage,
  limitBytes = FORM_LIMIT_BYTES,
): Promise<URLSearchParams> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    throw new FormBodyError(415, 'The form must be sent as application/x-www-form-urlencoded.');
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limitBytes) throw new FormBodyError(413, 'The form is too large.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // A chunked body has no declared length: count while reading.
    if (size > limitBytes) throw new FormBodyError(413, 'The form is too large.');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
