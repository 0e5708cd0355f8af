import type { Clock, Platform } from '@tessera/platform';
import type { SigningConfig } from './config.js';
import { providerNotFound } from './domain/errors.js';
import { PreparedUpdates } from './flow/prepared-updates.js';
import { RecentKeyEntries } from './flow/recent-key-entries.js';
import { ExternalKeyProvider } from './keys/external-provider.js';
import type { KeyProvider } from './keys/key-provider.js';
import { Pkcs11KeyProvider } from './keys/pkcs11-provider.js';
import { SoftwareKeyProvider } from './keys/software-provider.js';

/** What the signing commands share: the platform, the configuration and the key providers. */
export interface SigningServices {
  platform: Platform;
  config: SigningConfig;
  clock: Clock;
  providers: ProviderRegistry;
  /** PAdES updates prepared by operation 1, for operation 4 of the same inputs (flow/prepared-updates.ts). */
  preparedUpdates: PreparedUpdates;
  /** Key entries read by the steps that only read them (flow/recent-key-entries.ts). */
  recentKeyEntries: RecentKeyEntries;
}

export class ProviderRegistry {
  private readonly byId = new Map<string, KeyProvider>();

  constructor(providers: readonly KeyProvider[]) {
    for (const provider of providers) this.byId.set(provider.id, provider);
  }

  /** The provider a tenant may use under this id; 404 for an unknown one or one the tenant may not use. */
  get(id: string, tenantId: string): KeyProvider {
    const provider = this.byId.get(id);
    if (!provider || !provider.servesTenant(tenantId)) throw providerNotFound(id);
    return provider;
  }

  async close(): Promise<void> {
    for (const provider of this.byId.values()) await provider.close?.();
  }
}

export function createSigningServices(platform: Platform, config: SigningConfig): SigningServices {
  const providers: KeyProvider[] = [
    new SoftwareKeyProvider(platform.keys, platform.clock),
    new ExternalKeyProvider(),
    ...Object.entries(config.pkcs11).map(([id, c]) => new Pkcs11KeyProvider(id, c)),
  ];
  return {
    platform,
    config,
    clock: platform.clock,
    providers: new ProviderRegistry(providers),
    // A merge later than the signature's validity is refused, so a kept update is of no use beyond it.
    preparedUpdates: new PreparedUpdates(
      platform.clock,
      (config.signatureValiditySeconds + config.clockSkewSeconds) * 1000,
    ),
    recentKeyEntries: new RecentKeyEntries(platform.clock, config.keyEntryCacheSeconds * 1000),
  };
}
