import type { Clock, Platform } from '@tessera/platform';
import type { ResolveCache } from './commands/resolve-cache.js';
import type { DesignsConfig } from './config.js';
import type { SourceFetcher } from './import/source-fetcher.js';
import type { BlobStore } from './storage/blob-store.js';
import type { DesignSelector, DesignValidators } from './storage/design-store.js';
import type { ResolveRead } from './storage/resolve-reads.js';

/** What the commands of the design registry need. */
export interface DesignsServices {
  platform: Platform;
  config: DesignsConfig;
  clock: Clock;
  fetcher: SourceFetcher;
  blobs: BlobStore;
  /** A resolve's read of its design and variants, batched per tenant (storage/resolve-reads.ts). */
  readForResolve: (tenantId: string, selector: DesignSelector) => Promise<ResolveRead>;
  /** A conditional resolve's first read: the ETag's inputs only (storage/resolve-reads.ts), batched the same way. */
  readValidatorsForResolve: (tenantId: string, selector: DesignSelector) => Promise<DesignValidators | null>;
  /** Resolved designs of this process, each used only while its validators are current (commands/resolve-cache.ts). */
  resolveCache: ResolveCache;
}
