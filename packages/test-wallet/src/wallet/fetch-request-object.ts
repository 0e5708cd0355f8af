import { WalletError } from './wallet-error.js';

export const REQUEST_OBJECT_CONTENT_TYPE = 'application/oauth-authz-req+jwt';

/** The media type without parameters, lower case. */
function mediaType(header: string | null): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Fetches the request object from `request_uri` (RFC 9101 §5.2; OpenID4VP 1.0 §5.10). A redirect is refused, not
 * followed (OpenID4VP 1.0 §14.8), and the answer must be `application/oauth-authz-req+jwt` (RFC 9101 §10.2).
 * With `post`, the wallet sends its metadata and a wallet_nonce as a form (OpenID4VP 1.0 §5.10.1).
 */
export async function fetchRequestObject(input: {
  requestUri: string;
  post?: { walletMetadata: Record<string, unknown>; walletNonce: string };
  fetch: typeof fetch;
}): Promise<string> {
  const headers: Record<string, string> = { accept: REQUEST_OBJECT_CONTENT_TYPE };
  let body: string | undefined;
  if (input.post) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams({
      wallet_metadata: JSON.stringify(input.post.walletMetadata),
      wallet_nonce: input.post.walletNonce,
    }).toString();
  }
  let response: Response;
  try {
    response = await input.fetch(input.requestUri, {
      method: input.post ? 'POST' : 'GET',
      headers,
      body,
      redirect: 'manual',
    });
  } catch (error) {
    throw new WalletError('request_fetch_failed', `the request_uri could not be reached: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (response.status >= 300 && response.status < 400) {
    throw new WalletError(
      'request_redirected',
      `the request_uri answered ${response.status} (a redirect); redirects are refused`,
    );
  }
  if (!response.ok) throw new WalletError('request_fetch_failed', `the request_uri answered ${response.status}`);
  const type = mediaType(response.headers.get('content-type'));
  if (type !== REQUEST_OBJECT_CONTENT_TYPE) {
    throw new WalletError(
      'request_content_type',
      `the request object came as '${type}', expected ${REQUEST_OBJECT_CONTENT_TYPE}`,
    );
  }
  return (await response.text()).trim();
}
