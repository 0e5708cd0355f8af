import { calculateJwkThumbprint, type JWK } from 'jose';
import type { TestIssuer } from '@tessera/test-wallet';
import { DEMO_VC_TYPE, DEMO_VCT } from '@tessera/test-wallet';
import type { PostgresIdentityStore } from '@tessera/identity';
import type { Platform } from '@tessera/platform';
import { bearer, type BridgeApp } from './bridge-app.js';

/** Shared pieces of the end-to-end tests: the bridge configuration for the test issuer, and a few HTTP helpers. */
export const W3C_QUERY_ID = 'wallet-login-w3c';

export const PERSON = {
  service_id: 'u-1001',
  eduperson_principal_name: 'alice@uni.example',
  email: 'alice@uni.example',
  given_name: 'Alice',
  family_name: 'Doe',
};

/** The reference query for SD-JWT VCs of the issuer, and a jwt_vc_json twin, both trusting only this issuer. */
export function bridgeConfigFor(
  issuer: TestIssuer,
  statusOrigin: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const claim = (name: string, required: boolean) => ({ path: `$.credentialSubject.${name}`, required });
  return {
    walletLogin: { format: 'dc+sd-jwt', type: DEMO_VCT, trustedIssuers: [issuer.issuerId] },
    queries: {
      [W3C_QUERY_ID]: {
        credentials: [
          {
            id: 'identity',
            format: 'jwt_vc',
            type: DEMO_VC_TYPE,
            claims: [
              claim('service_id', true),
              claim('eduperson_principal_name', true),
              claim('email', false),
              claim('given_name', false),
              claim('family_name', false),
            ],
            trusted_issuers: [{ kind: 'did', value: issuer.issuerId }],
          },
        ],
      },
    },
    statusListCache: { allowPrivateNetworkOrigins: [statusOrigin] },
    ...extra,
  };
}

/** The holder key under which the bridge keeps a wallet binding (RFC 9278 thumbprint URI, `credential-key`). */
export async function holderKeyOf(jwk: JWK): Promise<string> {
  return `urn:ietf:params:oauth:jwk-thumbprint:sha-256:${await calculateJwkThumbprint(jwk, 'sha256')}`;
}

/** An identity with the person's claims, bound to the holder key (a returning user). */
export async function bindKnownHolder(
  platform: Platform,
  identities: PostgresIdentityStore,
  holderKey: string,
  claims: Record<string, unknown> = PERSON,
): Promise<string> {
  return platform.db.withTenant('demo', async (sql) => {
    const unit = { tenantId: 'demo', sql };
    const identity = await identities.createIdentity(unit, {
      claims,
      assurance: { acr: 'urn:test:loa:substantial', amr: ['federation'] },
    });
    await identities.bindWallet(unit, identity.internalIdentityId, holderKey);
    return identity.internalIdentityId;
  });
}

export interface SessionCalls {
  create(body?: Record<string, unknown>): Promise<{ sessionId: string; requestUri: string }>;
  status(sessionId: string): Promise<{ statusCode: number; body: Record<string, unknown> }>;
  complete(sessionId: string): Promise<{ statusCode: number; body: Record<string, unknown> }>;
  redeem(
    sessionId: string,
    body: Record<string, unknown>,
  ): Promise<{ statusCode: number; body: Record<string, unknown> }>;
}

export function sessionCalls(b: BridgeApp, portalToken: string, tokenServiceToken: string): SessionCalls {
  return {
    async create(body = { queryId: 'wallet-login' }) {
      const res = await b.app.inject({
        method: 'POST',
        url: '/auth/oid4vp/sessions',
        headers: bearer(portalToken),
        payload: body,
      });
      if (res.statusCode !== 200) throw new Error(`create answered ${res.statusCode}: ${res.body}`);
      return res.json();
    },
    async status(sessionId) {
      const res = await b.app.inject({
        method: 'GET',
        url: `/auth/oid4vp/sessions/${sessionId}/status`,
        headers: bearer(portalToken),
      });
      return { statusCode: res.statusCode, body: res.json() };
    },
    async complete(sessionId) {
      const res = await b.app.inject({
        method: 'POST',
        url: `/auth/oid4vp/sessions/${sessionId}/complete`,
        headers: bearer(portalToken),
      });
      return { statusCode: res.statusCode, body: res.json() };
    },
    async redeem(sessionId, body) {
      const res = await b.app.inject({
        method: 'POST',
        url: `/auth/oid4vp/sessions/${sessionId}/redeem`,
        headers: bearer(tokenServiceToken),
        payload: body,
      });
      return { statusCode: res.statusCode, body: res.json() };
    },
  };
}
