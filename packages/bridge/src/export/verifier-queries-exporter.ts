import Type, { type Static } from 'typebox';
import type { TenantExporter } from '@tessera/platform';
import { BridgeConfigSchema, type BridgeConfig } from '../config.js';

const VerifierQueries = Type.Object(
  {
    /** Named DCQL queries with their trusted issuers (000 §2.2), as configured. */
    queries: BridgeConfigSchema.properties.queries,
    /** The reference query `wallet-login` and its trust source bindings (trusted issuers). */
    walletLogin: BridgeConfigSchema.properties.walletLogin,
  },
  { additionalProperties: false },
);
type VerifierQueries = Static<typeof VerifierQueries>;

/**
 * The DCQL queries and trust source bindings the verifier applies to the tenant (001 §4.5), for the tenant export.
 * They are deployment configuration (`bridge.queries`, `bridge.walletLogin`), the same for every tenant of the
 * deployment: exported so that the document says what the tenant's presentations are checked against, never
 * imported (the operator owns the configuration file). Trusted issuers hold public material only (DIDs, pinned
 * public JWKs, X.509 anchors).
 */
export function verifierQueriesExporter(
  config: Pick<BridgeConfig, 'queries' | 'walletLogin'>,
): TenantExporter<VerifierQueries> {
  return {
    section: 'bridge.verifier-queries',
    origin: 'configuration',
    schema: VerifierQueries,
    read: () => Promise.resolve(structuredClone({ queries: config.queries, walletLogin: config.walletLogin })),
  };
}
