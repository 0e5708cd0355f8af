/** base64url without padding (RFC 7515 §2), the encoding of every JOSE and SD-JWT part. */
export function encodeBase64Url(data: Uint8Array | string): string {
  return Buffer.from(typeof data === 'string' ? Buffer.from(data, 'utf8') : data).toString('base64url');
}

export function decodeBase64Url(value: string): Buffer {
  return Buffer.from(value, 'base64url');
}

export function encodeJsonBase64Url(value: unknown): string {
  return encodeBase64Url(JSON.stringify(value));
}

export function decodeJsonBase64Url<T = unknown>(value: string): T {
  return JSON.parse(decodeBase64Url(value).toString('utf8')) as T;
}
