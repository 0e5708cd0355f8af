import type { SourceType } from '../domain/enums.js';
import { jsonSchemaMapper } from './json-schema.js';
import type { SourceMapper } from './mapper.js';
import { ocaBundleMapper } from './oca-bundle.js';
import { oid4vciCredentialConfigurationMapper, oid4vciIssuerMetadataMapper } from './oid4vci.js';
import { sdJwtVctMetadataMapper } from './sd-jwt-vct.js';
import { w3cRenderMethodMapper } from './w3c-render-method.js';

/** One mapper per DesignSourceType (001 §2.1). */
export const MAPPERS: Record<SourceType, SourceMapper> = {
  OID4VCI_CREDENTIAL_CONFIGURATION: oid4vciCredentialConfigurationMapper,
  OID4VCI_ISSUER_METADATA: oid4vciIssuerMetadataMapper,
  SD_JWT_VCT_METADATA: sdJwtVctMetadataMapper,
  OCA_BUNDLE: ocaBundleMapper,
  W3C_RENDER_METHOD: w3cRenderMethodMapper,
  JSON_SCHEMA: jsonSchemaMapper,
};

export type { MapContext, MappedDesign, SourceMapper } from './mapper.js';
export { mapOcaBundle } from './oca-bundle.js';
