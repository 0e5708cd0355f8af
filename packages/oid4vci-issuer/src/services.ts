import { createHash } from 'node:crypto';
import type { JWK } from 'jose';
import { Openid4vciIssuer } from '@openid4vc/openid4vci';
import { secureRandomBytes, type Clock, type Platform } from '@tessera/platform';
import type { Oid4vciConfig } from './config.js';
import type { CredentialGrantsPort, DesignDisplayPort, IssuanceSessionsPort, StatusEntriesPort } from './ports.js';
import { IssuerKeys } from './credentials/issuer-keys.js';
import { verifyJwkSignedJwt } from './credentials/proofs.js';
import { credentialConfigurationMetadata } from './domain/metadata.js';

/** The token service whose access tokens the credential endpoint accepts (contract B): its issuer and key set. */
export interface AuthorizationServerPort {
  issuerFor(tenantId: string): string;
  /** The public keys of the tenant's token signing key (active and still published). */
  jwks(tenantId: string): Promise<JWK[]>;
}

export interface Oid4vciDeps {
  config: Oid4vciConfig;
  grants: CredentialGrantsPort;
  sessions: IssuanceSessionsPort;
  statusEntries: StatusEntriesPort;
  authorizationServer: AuthorizationServerPort;
  designs?: DesignDisplayPort | undefined;
}

export interface Oid4vciServices extends Oid4vciDeps {
  platform: Platform;
  clock: Clock;
  /** The @openid4vc/openid4vci issuer building blocks, crypto through callbacks. */
  library: Openid4vciIssuer;
  issuerKeys: IssuerKeys;
  /** `credential_configurations_supported` without display: what the library parses requests against. */
  knownConfigurations: Record<string, Record<string, unknown>>;
}

const hash = (data: Uint8Array, alg: string) =>
  createHash(alg === 'sha-384' ? 'sha384' : alg === 'sha-512' ? 'sha512' : 'sha256')
    .update(data)
    .digest();

export function createOid4vciServices(platform: Platform, deps: Oid4vciDeps): Oid4vciServices {
  const library = new Openid4vciIssuer({
    callbacks: {
      hash,
      generateRandom: (n: number) => secureRandomBytes(n),
      // The library signs nothing here (credentials are signed through the key manager); it verifies proofs.
      signJwt: () => Promise.reject(new Error('not used')),
      verifyJwt: verifyJwkSignedJwt,
      fetch,
      clientAuthentication: () => undefined,
    } as never,
  });
  return {
    ...deps,
    platform,
    clock: platform.clock,
    library,
    issuerKeys: new IssuerKeys(platform.keys),
    knownConfigurations: Object.fromEntries(
      Object.entries(deps.config.credentialConfigurations).map(([id, c]) => [
        id,
        credentialConfigurationMetadata(c, null),
      ]),
    ),
  };
}
