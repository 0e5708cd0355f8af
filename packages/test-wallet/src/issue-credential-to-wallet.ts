import type { CredentialFormat, IssuedCredential } from './common/credential-format.js';
import { DEMO_VC_TYPE, DEMO_VCT } from './development/demo-constants.js';
import type { TestIssuer } from './issuer/create-test-issuer.js';
import type { TestWallet } from './wallet/create-test-wallet.js';

export interface IssueCredentialToWalletOptions {
  format: CredentialFormat;
  claims: Record<string, unknown>;
  /** SD-JWT VC type; default DEMO_VCT. */
  vct?: string;
  /** W3C credential type; default DEMO_VC_TYPE. */
  type?: string;
  statusIndex?: number;
}

/** Issues a credential bound to the wallet's next binding key and stores it in the wallet. */
export async function issueCredentialToWallet(
  issuer: TestIssuer,
  wallet: TestWallet,
  options: IssueCredentialToWalletOptions,
): Promise<IssuedCredential> {
  const key = await wallet.nextBindingKey();
  const status = options.statusIndex !== undefined ? { statusIndex: options.statusIndex } : {};
  const credential =
    options.format === 'dc+sd-jwt'
      ? await issuer.issueSdJwtVc({
          holderPublicJwk: key.publicJwk,
          vct: options.vct ?? DEMO_VCT,
          claims: options.claims,
          ...status,
        })
      : await issuer.issueJwtVc({
          holderDid: key.did,
          type: options.type ?? DEMO_VC_TYPE,
          claims: options.claims,
          ...status,
        });
  await wallet.store(credential);
  return credential;
}
