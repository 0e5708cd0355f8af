import type { Clock, Platform } from '@tessera/platform';
import type { IdentityStore } from '@tessera/identity';
import type { BridgeConfig } from './config.js';
import { RequestSigner } from './crypto/request-signer.js';
import { Sealer } from './crypto/sealing.js';
import { resolveQueries, type PresentationQuery } from './domain/queries.js';
import { StatusChecker } from './domain/verification/status.js';
import { CachedStatusListSource } from './outbound/status-list-source.js';
import type { SubjectGrantRevocation } from './reconciliation/subject-grants-port.js';

/** What the composition root hands the bridge besides the platform. */
export interface BridgeDeps {
  /** The `bridge` configuration section (BridgeConfigSchema). */
  config: BridgeConfig;
  /** The identity context's store (packages/identity). */
  identities: IdentityStore;
  /** Default: the platform clock. */
  clock?: Clock;
  /**
   * The verifier's display from the design registry (issue 17 item 6): `client_name` and `logo_uri` of the request
   * object's `client_metadata`, from the verifier design bound to the client id. Absent: no display is sent.
   */
  verifierDisplay?: VerifierDisplayLookup | undefined;
  /**
   * The token service's revocation of an erased identity's grants (reconciliation/subject-grants-port.ts). Absent:
   * a composition without the token service, whose erasure has no grants to revoke.
   */
  revokeSubjectGrants?: SubjectGrantRevocation | undefined;
}

/** A verifier design's display for a client id, or null when none is bound. */
export type VerifierDisplayLookup = (
  tenantId: string,
  clientId: string,
) => Promise<{ clientName: string; logoUri?: string } | null>;

/** The bridge's services, built once per app (or shared by several apps of one process). */
export interface BridgeServices {
  platform: Platform;
  config: BridgeConfig;
  clock: Clock;
  identities: IdentityStore;
  sealer: Sealer;
  signer: RequestSigner;
  statusSource: CachedStatusListSource;
  status: StatusChecker;
  queries: Map<string, PresentationQuery>;
  /** 000 spec README: "the service" claim name (platform deployment.serviceClaim). */
  serviceClaim: string;
  /** 000 §2.3: `urn:<vendor>:oid4vp:vp`. */
  acr: string;
  /** The verifier's display for its client id (cached briefly: a session per login must not read the registry). */
  verifierDisplay: VerifierDisplayLookup;
  /** The token service's part of an identity erasure; null without the token service. */
  revokeSubjectGrants: SubjectGrantRevocation | null;
}

export function createBridgeServices(platform: Platform, deps: BridgeDeps): BridgeServices {
  const { config } = deps;
  const clock = deps.clock ?? platform.clock;
  const serviceClaim = platform.config.deployment.serviceClaim;
  const statusSource = new CachedStatusListSource({
    db: platform.db,
    clock,
    options: statusListCacheOptions(config, platform.config.profile === 'production'),
  });
  return {
    platform,
    config,
    clock,
    identities: deps.identities,
    sealer: new Sealer(platform.keys),
    signer: createRequestSigner(platform, config, clock),
    statusSource,
    status: new StatusChecker(statusSource, { clockSkewSeconds: config.clockSkewSeconds }),
    queries: resolveQueries(config, serviceClaim, { development: platform.config.profile === 'development' }),
    serviceClaim,
    acr: `urn:${platform.config.deployment.acrVendor}:oid4vp:vp`,
    verifierDisplay: cachedVerifierDisplay(deps.verifierDisplay, clock),
    revokeSubjectGrants: deps.revokeSubjectGrants ?? null,
  };
}

/** How long a verifier display is reused: a renamed verifier shows in new sessions within this time. */
const VERIFIER_DISPLAY_TTL_MS = 30_000;

function cachedVerifierDisplay(lookup: VerifierDisplayLookup | undefined, clock: Clock): VerifierDisplayLookup {
  if (!lookup) return () => Promise.resolve(null);
  const cache = new Map<string, { at: number; value: ReturnType<VerifierDisplayLookup> }>();
  return (tenantId, clientId) => {
    const key = `${tenantId}\u0000${clientId}`;
    const now = clock.now().getTime();
    const hit = cache.get(key);
    if (hit && now - hit.at < VERIFIER_DISPLAY_TTL_MS) return hit.value;
    // A failed lookup is not kept, and never fails the session: the request goes out without a display.
    const value = lookup(tenantId, clientId).catch(() => {
      cache.delete(key);
      return null;
    });
    if (cache.size > 1000) cache.clear();
    cache.set(key, { at: now, value });
    return value;
  };
}

/** README "Status lists": a revocation shows within 300 s under production, within 30 s in development and tests. */
export const DEFAULT_STATUS_LIST_MAX_TTL_SECONDS = { production: 300, development: 30 } as const;

export function statusListCacheOptions(config: BridgeConfig, production: boolean) {
  const { maxTtlSeconds, ...rest } = config.statusListCache;
  const fallback = DEFAULT_STATUS_LIST_MAX_TTL_SECONDS[production ? 'production' : 'development'];
  return { ...rest, maxTtlSeconds: maxTtlSeconds ?? fallback };
}

/** The request-object signer of this deployment (also what the operators' certificate request is made with). */
export function createRequestSigner(
  platform: Platform,
  config: BridgeConfig,
  clock: Clock = platform.clock,
): RequestSigner {
  return new RequestSigner({
    keys: platform.keys,
    db: platform.db,
    clock,
    config,
    production: platform.config.profile === 'production',
  });
}
