import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';

export interface DecodedSdJwtPresentation {
  issuerPayload: Record<string, unknown>;
  issuerHeader: Record<string, unknown>;
  disclosures: Array<{ encoded: string; digest: string; name: string; value: unknown }>;
  /** Digests in the issuer-signed `_sd`. */
  digests: string[];
  keyBinding?: { header: Record<string, unknown>; payload: Record<string, unknown> };
  /** The SD-JWT part the sd_hash covers (RFC 9901 §4.3.1). */
  withoutKeyBinding: string;
}

/** Splits an SD-JWT presentation into its parts (RFC 9901 §4), for assertions on what the wallet posted. */
export function decodeSdJwtPresentation(presentation: string): DecodedSdJwtPresentation {
  const parts = presentation.split('~');
  const keyBinding = parts[parts.length - 1]!;
  const issuerPayload = decodeJwt(parts[0]!) as Record<string, unknown>;
  return {
    issuerPayload,
    issuerHeader: decodeProtectedHeader(parts[0]!) as Record<string, unknown>,
    disclosures: parts.slice(1, -1).map((encoded) => {
      const [, name, value] = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as [
        string,
        string,
        unknown,
      ];
      return { encoded, digest: createHash('sha256').update(encoded).digest('base64url'), name, value };
    }),
    digests: (issuerPayload['_sd'] as string[] | undefined) ?? [],
    ...(keyBinding
      ? {
          keyBinding: {
            header: decodeProtectedHeader(keyBinding) as Record<string, unknown>,
            payload: decodeJwt(keyBinding) as Record<string, unknown>,
          },
        }
      : {}),
    withoutKeyBinding: presentation.slice(0, presentation.length - keyBinding.length),
  };
}

export function sha256Base64Url(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}
