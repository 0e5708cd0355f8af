import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { createDpopProof, type DpopKeySigner } from '@tessera/pkce-dpop';

/**
 * A second, independent authorization server for the reconciliation tests: oidc-provider 9 (not our token
 * service) issuing client_credentials access tokens as ES256 JWTs for the API's audience (resource indicators), and
 * DPoP-bound ones (cnf.jkt, RFC 9449 §6) when the token request carries a proof. No tenant claim: its clients act
 * in the default tenant.
 */
export interface SecondProvider {
  issuer: string;
  jwksUri: string;
  /** A client_credentials token; with `dpop`, bound to that key (token_type DPoP). */
  token(
    clientId: string,
    options?: { scope?: string; dpop?: DpopKeySigner },
  ): Promise<{ accessToken: string; tokenType: string }>;
  close(): Promise<void>;
}

export const SECOND_PROVIDER_SECRET = 'second-provider-secret';

export async function startSecondProvider(options: {
  clientIds: string[];
  audience: string;
  scopes: string[];
  /** Clients whose tokens name a tenant (`tenant_id`), as a provider of that tenant would issue them. */
  tenantOf?: Record<string, string>;
}): Promise<SecondProvider> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const rsa = await generateKeyPair('RS256', { extractable: true });
  const ec = await generateKeyPair('ES256', { extractable: true });
  const keys = [
    { ...(await exportJWK(rsa.privateKey)), kid: 'second-rs256', use: 'sig', alg: 'RS256' },
    { ...(await exportJWK(ec.privateKey)), kid: 'second-es256', use: 'sig', alg: 'ES256' },
  ];
  const provider = new Provider(issuer, {
    clients: options.clientIds.map((clientId) => ({
      client_id: clientId,
      client_secret: SECOND_PROVIDER_SECRET,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    jwks: { keys },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      dPoP: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => 'urn:tessera:reconciliation',
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: options.scopes.join(' '),
          audience: options.audience,
          accessTokenTTL: 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    enabledJWA: { dPoPSigningAlgValues: ['ES256'] },
    extraTokenClaims: (_ctx, token) => {
      const tenant = options.tenantOf?.[String((token as { clientId?: string }).clientId)];
      return tenant ? { tenant_id: tenant } : undefined;
    },
  });
  http.on('request', provider.callback());
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    async token(clientId, { scope = options.scopes.join(' '), dpop } = {}) {
      const endpoint = `${issuer}/token`;
      const headers: Record<string, string> = {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${SECOND_PROVIDER_SECRET}`).toString('base64')}`,
      };
      if (dpop) {
        const issuerKey = { method: 'KEY_ALIAS' as const, identifier: 'second-provider-client', signer: dpop };
        headers.dpop = (await createDpopProof({ issuer: issuerKey, httpMethod: 'POST', httpUrl: endpoint })).dpopProof;
      }
      const response = await fetch(endpoint, {
        method: 'POST',
        headers,
        body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
      });
      const body = (await response.json()) as { access_token?: string; token_type?: string };
      if (response.status !== 200 || !body.access_token) throw new Error(`token endpoint answered ${response.status}`);
      return { accessToken: body.access_token, tokenType: body.token_type ?? '' };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.close((error) => (error ? reject(error) : resolve()));
        http.closeAllConnections();
      }),
  };
}
