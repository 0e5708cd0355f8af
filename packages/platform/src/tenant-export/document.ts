import Type, { type Static, type TSchema } from 'typebox';
import type { TenantExporter } from './exporter.js';

/** The document's format name and version (bumped on any change an older importer could not read). */
export const TENANT_EXPORT_FORMAT = 'tessera.tenant-export';
export const TENANT_EXPORT_VERSION = 1;

const TenantId = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' });

/** The tenant registration (platform `tenants` row): its public-endpoint bindings are its host names. */
export const TenantRegistration = Type.Object(
  {
    displayName: Type.String({ minLength: 1, maxLength: 200 }),
    status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
    hostNames: Type.Array(Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:-]+$' }), {
      maxItems: 100,
      description: 'Public-endpoint bindings: the Host names that resolve to the tenant (001 §5).',
    }),
  },
  { additionalProperties: false },
);
export type TenantRegistration = Static<typeof TenantRegistration>;

export interface TenantExportSection {
  origin: 'stored' | 'configuration';
  data: unknown;
}

export interface TenantExportDocument {
  format: typeof TENANT_EXPORT_FORMAT;
  version: typeof TENANT_EXPORT_VERSION;
  exportedAt: string;
  /** The tenant it was exported from; ids inside the sections say `{tenant}` instead. */
  sourceTenantId: string;
  productVersion: string;
  tenant: TenantRegistration;
  sections: Record<string, TenantExportSection>;
}

/**
 * The JSON Schema of the document with the given sections. Every registered section is optional on import (a
 * document from a deployment without that context imports), and an unknown section is refused: the importer would
 * otherwise drop configuration silently.
 */
export function tenantExportSchema(exporters: readonly TenantExporter[]): TSchema {
  const sections: Record<string, TSchema> = {};
  for (const e of exporters) {
    sections[e.section] = Type.Optional(
      Type.Object({ origin: Type.Literal(e.origin), data: e.schema }, { additionalProperties: false }),
    );
  }
  return Type.Object(
    {
      format: Type.Literal(TENANT_EXPORT_FORMAT),
      version: Type.Literal(TENANT_EXPORT_VERSION),
      exportedAt: Type.String({ format: 'date-time' }),
      sourceTenantId: TenantId,
      productVersion: Type.String({ maxLength: 100 }),
      tenant: TenantRegistration,
      sections: Type.Object(sections, { additionalProperties: false }),
    },
    {
      $id: 'https://tessera.dev/schemas/tenant-export/v1',
      title: 'Tessera tenant export',
      description:
        "One tenant's configuration (001 §4.5): registration, public-endpoint bindings, integrations, credential designs, issuance pipelines, DCQL queries, trust sources and signing key aliases with public keys. Never subject data, presentation records, audit history or key material.",
      additionalProperties: false,
    },
  );
}
