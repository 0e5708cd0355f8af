import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRoleApp, loadConfig, type RoleApp } from '@tessera/platform';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { BridgeConfigSchema, registerBridgeRoutes } from '@tessera/bridge';
import { PostgresIdentityStore } from '@tessera/identity';
import { createTestWallet } from '@tessera/test-wallet';
import type { JWK } from 'jose';
import { json, LOGIN, LOGIN_VCT, startBed, type Bed } from './support.js';
import { createLibraryWallet } from './wallet.js';

const PERSON = {
  service_id: 'u-4711',
  eduperson_principal_name: 'erika@uni.example',
  given_name: 'Erika',
  family_name: 'Mustermann',
  email: 'erika@uni.example',
};

/**
 * Issue 19 "the whole loop": a credential from our issuer (pre-authorized flow, @openid4vc wallet client, DPoP) is
 * handed to the test wallet, which presents it at our bridge (OpenID4VP, the wallet-login query, the issuer trusted by
 * its published key): VERIFIED. Its status entry is then revoked through the status-list API and the next
 * presentation is refused by the status check.
 */
describe.each(DATABASE_KINDS)('an issued credential presented at the bridge, then revoked (%s)', (kind) => {
  let bed: Bed;
  let bridgeApp: RoleApp;
  let walletDir: string;
  let portalToken: string;
  let bridge: ReturnType<typeof loadBridgeConfig>;
  const loadBridgeConfig = (overrides: Record<string, unknown>) =>
    loadConfig(BridgeConfigSchema, { env: {}, overrides });

  beforeAll(async () => {
    bed = await startBed(kind);
    // The bridge trusts our issuer by its published key (trusted issuer of kind jwk) for the wallet-login query.
    const published = (await json(`${bed.url}/.well-known/jwt-vc-issuer`)).body.jwks as { keys: JWK[] };
    bridge = loadBridgeConfig({
      walletLogin: {
        format: 'dc+sd-jwt',
        type: LOGIN_VCT,
        trustedIssuers: published.keys.map((k) => ({ kind: 'jwk', value: JSON.stringify(k) })),
      },
      statusListCache: { allowPrivateNetworkOrigins: [bed.statusLists], minTtlSeconds: 0 },
    });
    walletDir = await mkdtemp(join(tmpdir(), 'oid4vci-wallet-'));
    bridgeApp = await createRoleApp(bed.t.platform, { role: 'bridge', title: 'bridge', family: 'oauth' });
    const identities = new PostgresIdentityStore({
      keys: bed.t.platform.keys,
      clock: bed.t.platform.clock,
      serviceClaim: 'service_id',
    });
    await registerBridgeRoutes(bridgeApp, bed.t.platform, { config: bridge, identities });
    await bridgeApp.listen({ host: 'localhost', port: 0 });
    bridge.publicBaseUrl = `http://localhost:${(bridgeApp.server.address() as AddressInfo).port}`;
    portalToken = await bed.issuer.sign(
      { sub: 'portal', azp: 'portal', client_id: 'portal', tenant_id: 'demo', scope: 'bridge:sessions' },
      { expiresInSeconds: 3600 },
    );
  });
  afterAll(async () => {
    await bridgeApp?.close();
    await bed?.close();
    if (walletDir) await rm(walletDir, { recursive: true, force: true });
  });

  it('is accepted by the bridge, and refused once revoked through the status-list API', async () => {
    // Issue with the library wallet; the holder key is the test wallet's (handed over as its key file).
    const offer = await json(`${bed.url}/oid4vci/webapp/credential-offers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bed.tokens.admin}` },
      body: { credential_configuration_ids: [LOGIN], credentialDataSupplierInput: PERSON, pinLength: 4 },
    });
    const vci = createLibraryWallet();
    const credentialOffer = await vci.client.resolveCredentialOffer(offer.body.uri as string);
    const issuerMetadata = await vci.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
    const dpop = await vci.newSigner();
    const token = await vci.client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      txCode: offer.body.userPin as string,
      dpop: { signer: dpop },
    });
    const holder = await vci.newSigner();
    const { c_nonce } = await vci.client.requestNonce({ issuerMetadata });
    const proof = await vci.client.createCredentialRequestJwtProof({
      issuerMetadata,
      credentialConfigurationId: LOGIN,
      signer: holder,
      nonce: c_nonce,
    });
    const issued = await vci.client.retrieveCredentials({
      issuerMetadata,
      credentialConfigurationId: LOGIN,
      proofs: { jwt: [proof.jwt] },
      accessToken: token.accessTokenResponse.access_token,
      dpop: { signer: dpop, ...(token.dpop?.nonce ? { nonce: token.dpop.nonce } : {}) },
    });
    const credential = (issued.credentialResponse.credentials![0] as { credential: string }).credential;

    await writeFile(
      join(walletDir, 'holder-keys.json'),
      JSON.stringify({ version: 1, keys: [await vci.exportPrivate(holder)] }),
    );
    const wallet = await createTestWallet({ dataDir: walletDir });
    await wallet.store(credential);

    const login = async () => {
      const created = await bridgeApp.inject({
        method: 'POST',
        url: '/auth/oid4vp/sessions',
        headers: { authorization: `Bearer ${portalToken}` },
        payload: { queryId: 'wallet-login' },
      });
      expect(created.statusCode, created.body).toBeLessThan(300);
      const { sessionId, requestUri } = created.json() as { sessionId: string; requestUri: string };
      const answer = await wallet.respond(requestUri, { useCredential: credential });
      const status = await bridgeApp.inject({
        method: 'GET',
        url: `/auth/oid4vp/sessions/${sessionId}/status`,
        headers: { authorization: `Bearer ${portalToken}` },
      });
      return { answer: answer.status, session: status.json() as Record<string, unknown> };
    };

    const before = await login();
    expect(before.answer, JSON.stringify(before.session)).toBe(200);
    expect(before.session).toMatchObject({ status: 'VERIFIED' });

    // Revocation through the status-list API, at the entry the credential carries.
    const payload = JSON.parse(Buffer.from(credential.split('~')[0]!.split('.')[1]!, 'base64url').toString()) as {
      status: { status_list: { idx: number; uri: string } };
    };
    const { idx, uri } = payload.status.status_list;
    const listId = uri.split('/').pop()!;
    const revoked = await json(`${bed.statusLists}/vc/status-lists/${listId}/entries/${idx}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${bed.tokens.admin}` },
      body: { status: 'invalid' },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1200)); // past the list's one-second ttl

    const after = await login();
    expect(after.answer).toBe(400);
    expect(after.session).toMatchObject({
      status: 'INTERACTION_STARTED',
      lastRejection: { check: 'status', reason: expect.stringContaining('revoked') },
    });
  });
});
