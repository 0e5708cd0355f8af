import type { DpopErrorCode } from './dpop-error.js';

/**
 * The `WWW-Authenticate` value of a 401 for the DPoP scheme (RFC 9449 §7.1, RFC 9110 §11.6.1):
 * `DPoP error="invalid_dpop_proof", error_description="...", algs="ES256 ES384"`. With a null error, only the
 * scheme and `algs` (an unauthenticated request, RFC 6750 §3). `error_description` keeps only the characters
 * RFC 6749 §5.2 allows, so it needs no escaping inside the quoted string.
 */
export function dpopChallenge(
  error: { code: DpopErrorCode | string; description?: string } | null,
  options: { algs: readonly string[] },
): string {
  const params: string[] = [];
  if (error !== null) {
    params.push(`error="${error.code.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '')}"`);
    const description = (error.description ?? '').replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '');
    if (description !== '') params.push(`error_description="${description}"`);
  }
  if (options.algs.length > 0) params.push(`algs="${options.algs.join(' ')}"`);
  return params.length === 0 ? 'DPoP' : `DPoP ${params.join(', ')}`;
}
