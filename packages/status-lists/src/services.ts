import type { Clock, Platform } from '@tessera/platform';
import type { StatusListsConfig } from './config.js';
import { EntryAllocator } from './entries/entry-allocator.js';
import { EntryUpdater } from './entries/entry-updater.js';
import { ListPublisher } from './publication/list-publisher.js';

/** What the routes, commands and the issuance hook of the status-list context share (one per platform). */
export interface StatusListServices {
  platform: Platform;
  config: StatusListsConfig;
  clock: Clock;
  publisher: ListPublisher;
  allocator: EntryAllocator;
  updater: EntryUpdater;
  /** The tenant's public base URL of this role, without a trailing slash. */
  baseUrlOf(tenantId: string): string;
  /** The public URI of a list: what credentials carry and where GET serves it. */
  uriOf(tenantId: string, listId: string): string;
}

const byPlatform = new WeakMap<Platform, Map<StatusListsConfig, StatusListServices>>();

export function statusListServices(platform: Platform, config: StatusListsConfig): StatusListServices {
  let forPlatform = byPlatform.get(platform);
  if (!forPlatform) byPlatform.set(platform, (forPlatform = new Map()));
  let services = forPlatform.get(config);
  if (!services) {
    const baseUrlOf = (tenantId: string) =>
      (config.tenantPublicBaseUrls[tenantId] ?? config.publicBaseUrl).replace(/\/+$/, '');
    const uriOf = (tenantId: string, listId: string) => `${baseUrlOf(tenantId)}/status-lists/${listId}`;
    services = {
      platform,
      config,
      clock: platform.clock,
      publisher: new ListPublisher({
        db: platform.db,
        keys: platform.keys,
        clock: platform.clock,
        uriOf,
        refreshMs: config.publicationRefreshSeconds * 1000,
      }),
      allocator: new EntryAllocator({
        db: platform.db,
        clock: platform.clock,
        onRollover: (from, to) =>
          platform.logger.info({ list_id: from, next_list_id: to }, 'status list full; rolled over'),
      }),
      updater: new EntryUpdater({ db: platform.db, clock: platform.clock }),
      baseUrlOf,
      uriOf,
    };
    forPlatform.set(config, services);
  }
  return services;
}
