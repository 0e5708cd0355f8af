import type { Clock, Platform } from '@tessera/platform';
import type { DesignsConfig } from './config.js';
import type { SourceFetcher } from './import/source-fetcher.js';
import type { BlobStore } from './storage/blob-store.js';

/** What the commands of the design registry need. */
export interface DesignsServices {
  platform: Platform;
  config: DesignsConfig;
  clock: Clock;
  fetcher: SourceFetcher;
  blobs: BlobStore;
}
