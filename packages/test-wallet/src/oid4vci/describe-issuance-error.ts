import { WalletError } from '../wallet/wallet-error.js';

/** An OAuth 2.0 / OpenID4VCI error response (RFC 6749 §5.2, OpenID4VCI 1.0 §8.3.1) as the libraries carry it. */
function errorResponseOf(error: object): { error?: unknown; error_description?: unknown } | undefined {
  if ('errorResponse' in error && typeof error.errorResponse === 'object' && error.errorResponse !== null)
    return error.errorResponse as { error?: unknown; error_description?: unknown };
  const response = (error as { response?: { credentialErrorResponseResult?: { success?: boolean; data?: unknown } } })
    .response;
  const parsed = response?.credentialErrorResponseResult;
  if (parsed?.success && typeof parsed.data === 'object' && parsed.data !== null)
    return parsed.data as { error?: unknown; error_description?: unknown };
  return undefined;
}

function statusOf(error: object): number | undefined {
  const response = (error as { response?: { status?: unknown; response?: { status?: unknown } } }).response;
  const status = response?.status ?? response?.response?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The system error code of a failed fetch (`ECONNREFUSED`, `ENOTFOUND`, …), if that is what happened. */
function networkCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    if (current instanceof TypeError && current.message === 'fetch failed' && !current.cause) return 'fetch failed';
    current = current.cause;
  }
  return undefined;
}

/**
 * Turns what the OpenID4VCI and OAuth libraries throw into one WalletError with a one-line message that says which
 * step failed and what the other side answered, e.g. "the token endpoint refused the pre-authorized code:
 * invalid_grant (wrong transaction code)".
 */
export function describeIssuanceError(step: string, where: string, error: unknown): WalletError {
  if (error instanceof WalletError) return error;
  const network = networkCodeOf(error);
  if (network) return new WalletError('issuer_unreachable', `${step}: ${where} is unreachable (${network})`);
  if (typeof error === 'object' && error !== null) {
    const answer = errorResponseOf(error);
    if (answer && typeof answer.error === 'string') {
      const description = typeof answer.error_description === 'string' ? ` (${answer.error_description})` : '';
      return new WalletError('issuance_refused', `${step}: ${where} answered ${answer.error}${description}`, {
        cause: error,
      });
    }
    const status = statusOf(error);
    if (status !== undefined)
      return new WalletError('issuance_refused', `${step}: ${where} answered HTTP ${status}`, { cause: error });
  }
  const message = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 300) : String(error);
  return new WalletError('issuance_refused', `${step}: ${message}`, { cause: error });
}
