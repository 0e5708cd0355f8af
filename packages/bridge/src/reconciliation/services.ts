import { JwtAuthenticator, type Clock, type DpopReplayStores, type Platform } from '@tessera/platform';
import type { IdentityStore } from '@tessera/identity';
import type { BridgeServices } from '../services.js';
import type { ReconciliationConfig } from './config.js';
import { AuxiliarySealer } from './crypto/auxiliary-sealer.js';
import { IdentityLookups } from './storage/identity-lookups.js';
import type { SubjectGrantRevocation } from './subject-grants-port.js';

/** What the external reconciliation API's routes and commands share (built once per bridge registration). */
export interface ReconciliationServices {
  platform: Platform;
  config: ReconciliationConfig;
  clock: Clock;
  identities: IdentityStore;
  /** The token service's part of an erasure (subject-grants-port.ts); null without the token service. */
  revokeSubjectGrants: SubjectGrantRevocation | null;
  /** The batched read path of POST /lookup. */
  lookups: IdentityLookups;
  sealer: AuxiliarySealer;
  /** Validates access tokens of the platform's issuers for this API's audience. */
  authenticator: JwtAuthenticator;
  /** The platform's DPoP replay state (RFC 9449 §11.1), one table or key space for every endpoint. */
  replay: DpopReplayStores;
  /** External base URL that DPoP proofs' htu must name (with the request path). */
  dpopBaseUrl: string;
  /** The deployment's service claim (`deployment.serviceClaim`). */
  serviceClaim: string;
}

export function createReconciliationServices(bridge: BridgeServices): ReconciliationServices {
  const { platform } = bridge;
  const config = bridge.config.reconciliation;
  const auth = platform.config.auth;
  return {
    platform,
    config,
    clock: bridge.clock,
    identities: bridge.identities,
    revokeSubjectGrants: bridge.revokeSubjectGrants,
    lookups: new IdentityLookups({ db: platform.db, identities: bridge.identities, clock: bridge.clock }),
    sealer: new AuxiliarySealer(platform.keys),
    // The platform's trusted issuers (000 §5 issuer, jwks-uri), each held to this API's audience: a token minted
    // for another API of the deployment is not accepted here.
    authenticator: new JwtAuthenticator({
      issuers: auth.issuers.map((i) => ({
        issuer: i.issuer,
        jwksUri: i.jwksUri,
        algorithms: i.algorithms,
        audience: config.audience,
        tenants: i.tenants,
        roles: i.roles,
        scopes: i.scopes,
      })),
      tenantClaim: platform.config.tenancy.jwtClaim,
      rolesClaim: auth.rolesClaim,
      platformAdminRole: auth.platformAdminRole,
      defaultTenant: platform.config.tenancy.defaultTenant,
      clockToleranceSeconds: auth.clockToleranceSeconds,
      jwksCacheSeconds: auth.jwksCacheSeconds,
      jwksCooldownSeconds: auth.jwksCooldownSeconds,
    }),
    replay: platform.dpopReplay,
    dpopBaseUrl: (config.dpop.baseUrl ?? bridge.config.publicBaseUrl).replace(/\/+$/, ''),
    serviceClaim: bridge.serviceClaim,
  };
}
