import { createTestIssuer, createTestWallet, DEMO_VCT, type TestIssuer, type TestWallet } from '@tessera/test-wallet';
import type { PostgresIdentityStore } from '@tessera/identity';
import type { Platform } from '@tessera/platform';

/** The credential of the wallet-login query (000 §2.2): the service claim and eduperson_principal_name required. */
export const HOLDER_CLAIMS = {
  service_id: 'S-4711',
  eduperson_principal_name: 'ada.lovelace@uni.example',
  email: 'ada@uni.example',
  given_name: 'Ada',
  family_name: 'Lovelace',
};

/**
 * The bridge configuration that trusts the test issuer for the wallet-login query, and nothing else: identity
 * resolution's auto-match stays off (its default), so a holder without a binding is unknown and `complete` answers
 * 202 (identity verification, flows.md 5').
 */
export const walletLoginSettings = (issuer: TestIssuer) => ({
  walletLogin: { format: 'dc+sd-jwt', type: DEMO_VCT, trustedIssuers: [issuer.issuerId] },
});

/** The bridge configuration that trusts the test issuer for the wallet-login query and matches by the service claim. */
export const bridgeSettings = (issuer: TestIssuer) => ({
  ...walletLoginSettings(issuer),
  // A known person whose wallet is new: the bridge matches the identity by the service claim (AUTO_MATCH_BY_ATTRIBUTE).
  identityResolution: { autoMatchAttributes: ['SERVICE_ID'] },
});

export async function createIssuerAndWallet(): Promise<{ issuer: TestIssuer; wallet: TestWallet }> {
  const issuer = await createTestIssuer();
  return { issuer, wallet: await createWalletOf(issuer) };
}

/** A new wallet holding one wallet-login credential of `issuer`, bound to a fresh holder key (so a new holder). */
export async function createWalletOf(
  issuer: TestIssuer,
  claims: Record<string, unknown> = HOLDER_CLAIMS,
): Promise<TestWallet> {
  const wallet = await createTestWallet();
  const key = await wallet.nextBindingKey();
  await wallet.store(
    await issuer.issueSdJwtVc({
      holderPublicJwk: key.publicJwk,
      vct: DEMO_VCT,
      claims,
      withStatus: false,
    }),
  );
  return wallet;
}

/** The institutional identity of the holder, as a federated login would have created it. */
export async function seedIdentity(
  platform: Platform,
  identities: PostgresIdentityStore,
  tenantId = 'demo',
): Promise<string> {
  const created = await platform.db.withTenant(tenantId, (sql) =>
    identities.createIdentity(
      { tenantId, sql },
      { claims: HOLDER_CLAIMS, assurance: { acr: 'urn:tessera:federation', amr: ['federation'] } },
    ),
  );
  return created.internalIdentityId;
}
