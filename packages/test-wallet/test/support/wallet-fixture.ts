import { createTestIssuer, type TestIssuer } from '../../src/issuer/create-test-issuer.js';
import { issueCredentialToWallet } from '../../src/issue-credential-to-wallet.js';
import {
  createTestWallet,
  type CreateTestWalletOptions,
  type TestWallet,
} from '../../src/wallet/create-test-wallet.js';
import { ALICE } from './queries.js';
import { startTestVerifier, type TestVerifier } from './start-test-verifier.js';

export interface WalletFixture {
  issuer: TestIssuer;
  wallet: TestWallet;
  verifier: TestVerifier;
  close(): Promise<void>;
}

/** An issuer with its status list server, a wallet holding Alice's credentials of both formats, a verifier trusting the issuer. */
export async function createWalletFixture(walletOptions: CreateTestWalletOptions = {}): Promise<WalletFixture> {
  const issuer = await createTestIssuer();
  await issuer.statusListServer();
  const wallet = await createTestWallet(walletOptions);
  await issueCredentialToWallet(issuer, wallet, { format: 'dc+sd-jwt', claims: ALICE });
  await issueCredentialToWallet(issuer, wallet, { format: 'jwt_vc_json', claims: ALICE });
  const verifier = await startTestVerifier({ trustedIssuers: [{ iss: issuer.issuerId, publicJwk: issuer.publicJwk }] });
  return {
    issuer,
    wallet,
    verifier,
    close: async () => {
      await verifier.close();
      await issuer.close();
    },
  };
}
