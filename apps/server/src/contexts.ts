import type { Platform } from '@tessera/platform';
import { PostgresIdentityStore, bindingRetentionJob, type IdentityStore } from '@tessera/identity';
import {
  createTokenService,
  prepareTokenService,
  grantPurgeJob,
  sealPersonalDataJob,
  revokeSubjectGrants,
  type TokenServiceContext,
} from '@tessera/token-service';
import { createBridgeServices, bridgeJobs, reconciliationJobs, type BridgeServices } from '@tessera/bridge';
import { createDesignDisplays, type DesignDisplays } from '@tessera/designs';
import type { ServerConfig } from './config.js';

/**
 * The bounded contexts of one process, built once and shared by the role listeners that need them (both token
 * ports share one token service).
 */
export class Contexts {
  private identityStore: IdentityStore | undefined;
  private tokenService: Promise<TokenServiceContext> | undefined;
  private bridgeServices: BridgeServices | undefined;
  private designDisplays: DesignDisplays | undefined;

  constructor(
    private readonly platform: Platform,
    private readonly config: ServerConfig,
  ) {}

  identities(): IdentityStore {
    if (!this.identityStore) {
      const { db, tenants, clock, logger } = this.platform;
      this.platform.jobs.register(
        bindingRetentionJob({ db, tenants, clock, logger, ...this.config.identity.retention }),
      );
    }
    this.identityStore ??= new PostgresIdentityStore({
      keys: this.platform.keys,
      clock: this.platform.clock,
      serviceClaim: this.config.deployment.serviceClaim,
    });
    return this.identityStore;
  }

  bridge(): BridgeServices {
    if (!this.bridgeServices) {
      const displays = this.displays();
      this.bridgeServices = createBridgeServices(this.platform, {
        config: this.config.bridge,
        identities: this.identities(),
        verifierDisplay: (tenantId, clientId) => displays.verifierDisplay(tenantId, clientId),
        // The token service's revocation of an erased identity's grants (issue 13 §9), in every process that serves
        // the bridge: every role shares one database (allMigrations), so the erasure revokes in its own transaction
        // whether or not the token service's listeners run in this process.
        revokeSubjectGrants: revokeSubjectGrants({ clock: this.platform.clock }),
      });
      for (const job of [...bridgeJobs(this.bridgeServices), ...reconciliationJobs(this.bridgeServices)])
        this.platform.jobs.register(job);
    }
    return this.bridgeServices;
  }

  /** The design registry's displays, read by the bridge and the issuer when they describe themselves. */
  displays(): DesignDisplays {
    this.designDisplays ??= createDesignDisplays(this.platform, this.config.designs);
    return this.designDisplays;
  }

  token(): Promise<TokenServiceContext> {
    this.tokenService ??= (async () => {
      const ctx = createTokenService(this.platform, this.config.tokenService, { identities: this.identities() });
      await prepareTokenService(ctx);
      this.platform.jobs.register(grantPurgeJob(ctx));
      this.platform.jobs.register(sealPersonalDataJob(ctx));
      return ctx;
    })();
    return this.tokenService;
  }
}
