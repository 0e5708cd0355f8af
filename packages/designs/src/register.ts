import type { Platform, RoleApp } from '@tessera/platform';
import { ResolveCache } from './commands/resolve-cache.js';
import type { DesignsConfig } from './config.js';
import { DESIGN_KINDS } from './domain/enums.js';
import { KINDS } from './domain/kinds.js';
import { registerDesignRoutes } from './http/design-routes.js';
import { registerDesignErrorHandler } from './http/error-handler.js';
import { registerJsonBody } from './http/json-body.js';
import { registerSnapshotRoutes } from './http/snapshot-routes.js';
import { registerVariantRoutes } from './http/variant-routes.js';
import { registerAssetRoutes } from './http/asset-routes.js';
import { createSourceFetcher, type SourceFetcher } from './import/source-fetcher.js';
import type { DesignsServices } from './services.js';
import { postgresBlobStore, type BlobStore } from './storage/blob-store.js';
import { createResolveReads, createValidatorReads } from './storage/resolve-reads.js';

export interface DesignsDeps {
  config: DesignsConfig;
  /** Replaces the SSRF-protected fetcher of imports (tests: a fixture server's certificate authority). */
  fetcher?: SourceFetcher;
  /** Replaces the PostgreSQL blob store of assets (an S3-compatible store). */
  blobs?: BlobStore;
}

/** Builds the services of the design registry from the platform and the `designs` configuration. */
export function createDesignsServices(platform: Platform, deps: DesignsDeps): DesignsServices {
  return {
    platform,
    config: deps.config,
    clock: platform.clock,
    fetcher:
      deps.fetcher ??
      createSourceFetcher({
        ...deps.config.import,
        // Plain http to public hosts only under the development profile (issue 17 item 2).
        allowHttp: platform.config.profile === 'development',
      }),
    blobs: deps.blobs ?? postgresBlobStore,
    readForResolve: createResolveReads(platform.db),
    readValidatorsForResolve: createValidatorReads(platform.db),
    resolveCache: new ResolveCache(deps.config.resolveCache.maxEntries),
  };
}

/** Registers the routes of the `designs` role on its app (001 §4.1, base /api/v1). */
export function registerDesignsRoutes(app: RoleApp, platform: Platform, deps: DesignsDeps): void {
  const services = createDesignsServices(platform, deps);
  // The resolve cache follows every replica's committed changes while the app runs (commands/resolve-cache.ts).
  const following = services.resolveCache.follow(platform.db.changes);
  if (following) app.addHook('onClose', () => following.close());
  void app.register(async (scope: RoleApp) => {
    registerDesignErrorHandler(scope, platform.metrics);
    registerJsonBody(scope);
    for (const kind of DESIGN_KINDS) registerDesignRoutes(scope, services, KINDS[kind]);
    registerSnapshotRoutes(scope, services);
    registerVariantRoutes(scope, services);
    registerAssetRoutes(scope, services);
  });
}
