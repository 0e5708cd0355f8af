import { isLoopbackUrl, isPlainHttpUrl } from '../common/is-loopback-url.js';
import { WalletError } from '../wallet/wallet-error.js';

/** A credential offer as a wallet receives it (OpenID4VCI 1.0 §4.1): by value, or by reference to fetch. */
export type CredentialOfferLink =
  | { kind: 'by-value'; link: string; offer: Record<string, unknown> }
  | { kind: 'by-reference'; link: string; offerUri: string };

/**
 * Reads an offer link: `openid-credential-offer://?credential_offer=…` or `…?credential_offer_uri=…` (OpenID4VCI 1.0
 * §4.1.1, §4.1.3), any other scheme a QR code may carry (`haip://`, an https link to a wallet) with the same query.
 * An offer by reference must be fetched over https, or plain http on a loopback host (development).
 */
export function parseCredentialOfferLink(link: string): CredentialOfferLink {
  const trimmed = link.trim();
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new WalletError('invalid_offer', 'the offer is not a URI (expected openid-credential-offer://?…)');
  }
  const offerUri = url.searchParams.get('credential_offer_uri');
  const offer = url.searchParams.get('credential_offer');
  if (offerUri !== null && offer !== null)
    throw new WalletError('invalid_offer', 'the offer has both credential_offer and credential_offer_uri');
  if (offerUri !== null) {
    requireSecureUrl(offerUri, 'credential_offer_uri');
    return { kind: 'by-reference', link: trimmed, offerUri };
  }
  if (offer === null)
    throw new WalletError('invalid_offer', 'the offer has neither a credential_offer nor a credential_offer_uri');
  let parsed: unknown;
  try {
    parsed = JSON.parse(offer);
  } catch {
    throw new WalletError('invalid_offer', 'the credential_offer parameter is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new WalletError('invalid_offer', 'the credential_offer parameter is not a JSON object');
  return { kind: 'by-value', link: trimmed, offer: parsed as Record<string, unknown> };
}

/** https, or plain http on a loopback host; anything else is refused before it is fetched. */
export function requireSecureUrl(value: string, what: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WalletError('invalid_offer', `${what} is not a URL`);
  }
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopbackUrl(value)) return;
  throw new WalletError('insecure_url', `${what} must be https (plain http only on a loopback host): ${value}`);
}

/** True when a URL the wallet will call is plain http on loopback, so the libraries' http switch must be on. */
export function needsLoopbackHttp(...urls: Array<string | undefined>): boolean {
  return urls.some((value) => value !== undefined && isPlainHttpUrl(value) && isLoopbackUrl(value));
}
