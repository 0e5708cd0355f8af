import type { Clock, JsonSealer, Platform, UpstreamOidcClient } from '@tessera/platform';
import type { IdentityStore } from '@tessera/identity';
import type { TokenServiceConfig } from './config.js';
import type { ClientRegistry } from './clients/client-registry.js';
import type { ClientSecretVerifier } from './clients/client-secret.js';
import type { TokenSigner } from './tokens/token-signer.js';
import type { WalletSessionRedeemer } from './wallet/bridge-client.js';
import type { TokenServiceDpop } from './dpop/token-service-dpop.js';
import type { GrantRedemptions } from './storage/grant-redemptions.js';

/** What the token service's commands and routes share. Built once by `createTokenService`. */
export interface TokenServiceContext {
  platform: Platform;
  config: TokenServiceConfig;
  clock: Clock;
  clients: ClientRegistry;
  secrets: ClientSecretVerifier;
  signer: TokenSigner;
  /** Personal data at rest: grant claims and upstream verifiers (storage/sealed-fields.ts). */
  sealer: JsonSealer;
  identities: IdentityStore;
  upstream: UpstreamOidcClient | null;
  wallet: WalletSessionRedeemer | null;
  /** DPoP proofs, nonces and replay state (RFC 9449); inert while `config.dpop.enabled` is false. */
  dpop: TokenServiceDpop;
  /** Code and refresh-token redemptions, batched per tenant across concurrent requests. */
  redemptions: GrantRedemptions;
  /** The deployment's service claim (000 §2.9: the service claim and scope). */
  serviceClaim: string;
  /** `urn:<vendor>:oid4vp:vp` (000 §2.3). */
  walletAcr: string;
  issuerFor(tenantId: string): string;
  /**
   * The credential issuer identifier bound to a tenant (issue 19 contract C, 001 §5 tenant_public_endpoint): the
   * `aud` of the access tokens for the credential endpoint. `undefined`: no binding, OpenID4VCI grants are refused.
   */
  credentialIssuerFor(tenantId: string): string | undefined;
  /** Scope value → credential configuration id, for credential requests by scope (OpenID4VCI 1.0 §5.1.2). */
  credentialScopes: Readonly<Record<string, string>>;
}
