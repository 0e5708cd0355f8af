import type { TSchema } from 'typebox';
import type { Sql } from '../db/database.js';
import type { Platform } from '../platform.js';

/** The unit of work a section is read from or written into: row-level security applies `tenantId`. */
export interface TenantUnit {
  tenantId: string;
  sql: Sql;
}

/** What a section's import hands back to the administrator (shown once, never stored in the document). */
export interface SectionImportResult {
  /** Secrets issued anew for imported objects (e.g. webhook destination secrets), by object id. */
  issuedSecrets?: Record<string, string>;
  /** Facts worth saying (e.g. "new key material under the same aliases"). */
  notes?: string[];
}

/**
 * One bounded context's part of a tenant export (001 §4.5 "tenant export"). Each context registers its own
 * exporter, so that its SQL stays in the context; the platform only assembles the document.
 *
 * `origin: 'stored'` sections live in the database: they are read in the exporting tenant's unit of work and written
 * by the import in the target tenant's one (one transaction for every stored section). `origin: 'configuration'`
 * sections describe what the deployment's configuration applies to the tenant (clients, DCQL queries, trust sources
 * held in the configuration file): exported so that the document is complete, never imported (the operator owns
 * the configuration).
 *
 * A section holds configuration only: never subject data, presentation records, audit history or key material.
 */
export interface TenantExporter<T = unknown> {
  /** Key of the section in the document, `<context>.<part>` (e.g. `designs.credential-designs`). */
  section: string;
  origin: 'stored' | 'configuration';
  /**
   * true: the section reads and writes through services that open their own units of work (the key manager), so it
   * runs outside the export's and the import's unit (on the embedded database a second unit would wait for the
   * first forever); its `read` gets a unit whose `sql` refuses every statement, and it writes in `afterCommit`.
   */
  ownUnits?: boolean;
  /** The section's data shape; the import validates against it and the repository's JSON Schema embeds it. */
  schema: TSchema;
  /**
   * Reads the section. Ids that embed the tenant id are written with the `{tenant}` placeholder
   * (TENANT_PLACEHOLDER), so that the document can be imported under another tenant id.
   */
  read(unit: TenantUnit): Promise<T>;
  /** Stored sections: whether the tenant holds anything of this section (an import needs an empty target). */
  isEmpty?(unit: TenantUnit): Promise<boolean>;
  /** Stored sections: recreates the section in the (empty) target tenant, in the import's unit of work. */
  write?(unit: TenantUnit, data: T): Promise<SectionImportResult | void>;
  /** Work that cannot share the import's transaction (e.g. key creation), run once it has committed. */
  afterCommit?(tenantId: string, data: T): Promise<SectionImportResult | void>;
}

/** Placeholder for the tenant id inside ids and aliases of an exported document. */
export const TENANT_PLACEHOLDER = '{tenant}';

/** Exporters registered per platform (one process may hold several platforms in tests). */
const registries = new WeakMap<Platform, Map<string, TenantExporter>>();

/** Registers a context's exporter on the platform; registering a section twice replaces the first (idempotent wiring). */
export function registerTenantExporter<T>(platform: Platform, exporter: TenantExporter<T>): void {
  let registry = registries.get(platform);
  if (!registry) {
    registry = new Map();
    registries.set(platform, registry);
  }
  registry.set(exporter.section, exporter as TenantExporter);
}

/** The registered exporters, by section name. */
export function tenantExporters(platform: Platform): TenantExporter[] {
  return [...(registries.get(platform)?.values() ?? [])].sort((a, b) => a.section.localeCompare(b.section));
}
