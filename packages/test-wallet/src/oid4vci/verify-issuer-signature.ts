import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import type { CredentialFormat } from '../common/credential-format.js';
import { WalletError } from '../wallet/wallet-error.js';
import { requireSecureUrl } from './parse-credential-offer-link.js';

const refused = (message: string) => new WalletError('issuance_refused', message);

/** SD-JWT VC §5.1: the metadata of issuer `https://host/path` is at `https://host/.well-known/jwt-vc-issuer/path`. */
export function jwtVcIssuerMetadataUrl(credentialIssuer: string): string {
  const url = new URL(credentialIssuer);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}/.well-known/jwt-vc-issuer${path}`;
}

async function fetchJson(fetchFunction: typeof fetch, url: string, what: string): Promise<Record<string, unknown>> {
  requireSecureUrl(url, what);
  const response = await fetchFunction(url, { headers: { accept: 'application/json' } });
  if (!response.ok) throw refused(`${what} answered HTTP ${response.status} at ${url}`);
  const body = (await response.json().catch(() => undefined)) as unknown;
  if (typeof body !== 'object' || body === null) throw refused(`${what} at ${url} is not a JSON object`);
  return body as Record<string, unknown>;
}

/**
 * A received credential is kept only when it is what the wallet asked the issuer for: `iss` names the credential
 * issuer of the offer, and the issuer-signed JWT verifies (ES256) with the key its `kid` names in the issuer's JWT VC
 * Issuer Metadata (SD-JWT VC §5: `issuer` equal to the credential issuer, keys in `jwks` or at `jwks_uri`).
 */
export async function verifyIssuerSignature(input: {
  raw: string;
  format: CredentialFormat;
  credentialIssuer: string;
  fetch: typeof fetch;
}): Promise<void> {
  const jwt = input.format === 'dc+sd-jwt' ? input.raw.split('~')[0]! : input.raw;
  let header: ReturnType<typeof decodeProtectedHeader>;
  let payload: ReturnType<typeof decodeJwt>;
  try {
    header = decodeProtectedHeader(jwt);
    payload = decodeJwt(jwt);
  } catch {
    throw refused('the issuer answered with something that is not a signed credential');
  }
  const issuer = input.credentialIssuer.replace(/\/+$/, '');
  if (typeof payload.iss !== 'string' || payload.iss.replace(/\/+$/, '') !== issuer)
    throw refused(`the credential's iss (${String(payload.iss)}) is not the credential issuer ${issuer}`);
  if (header.alg !== 'ES256') throw refused(`the credential is signed with ${String(header.alg)}, not ES256`);

  const metadataUrl = jwtVcIssuerMetadataUrl(issuer);
  const metadata = await fetchJson(input.fetch, metadataUrl, "the issuer's JWT VC Issuer Metadata");
  if (typeof metadata['issuer'] !== 'string' || metadata['issuer'].replace(/\/+$/, '') !== issuer)
    throw refused(`the JWT VC Issuer Metadata at ${metadataUrl} names another issuer`);
  let jwks = metadata['jwks'] as { keys?: JWK[] } | undefined;
  if (!jwks && typeof metadata['jwks_uri'] === 'string')
    jwks = (await fetchJson(input.fetch, metadata['jwks_uri'], "the issuer's jwks_uri")) as { keys?: JWK[] };
  const keys = Array.isArray(jwks?.keys) ? jwks.keys : [];
  const key = keys.find((candidate) => header.kid !== undefined && candidate.kid === header.kid);
  if (!key) throw refused(`the issuer publishes no key with the credential's kid (${String(header.kid)})`);
  try {
    await compactVerify(jwt, await importJWK(key, 'ES256'));
  } catch {
    throw refused("the credential's signature does not verify with the key the issuer publishes");
  }
}
