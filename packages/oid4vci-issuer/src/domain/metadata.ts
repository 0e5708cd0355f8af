import type { CredentialConfiguration, Oid4vciConfig } from '../config.js';
import type { TenantEndpoint } from './tenant-endpoint.js';

/** Algorithms of the issued credentials and of the proofs we verify (HAIP 1.0 §5: ES256). */
export const SIGNING_ALGS = ['ES256'] as const;
export const PROOF_ALGS = ['ES256'] as const;

export interface ConfigurationDisplay {
  display: Record<string, unknown>[];
  claims: Record<string, Record<string, unknown>[]>;
}

/** The claims description of a configuration (OpenID4VCI 1.0 Appendix B.2): `path` as an array of names. */
function claimsDescription(
  configuration: CredentialConfiguration,
  design: ConfigurationDisplay | null,
): Record<string, unknown>[] {
  return configuration.claims.map((claim) => {
    const display = design?.claims[claim.path] ?? claim.display;
    return {
      path:
        configuration.format === 'jwt_vc_json'
          ? ['credentialSubject', ...claim.path.split('.')]
          : claim.path.split('.'),
      mandatory: claim.mandatory,
      ...(display.length > 0 ? { display } : {}),
    };
  });
}

/** One entry of `credential_configurations_supported` (OpenID4VCI 1.0 §12.2.4, Appendix A.2, A.3). */
export function credentialConfigurationMetadata(
  configuration: CredentialConfiguration,
  design: ConfigurationDisplay | null,
): Record<string, unknown> {
  const display = design && design.display.length > 0 ? design.display : configuration.display;
  const common = {
    format: configuration.format,
    ...(configuration.scope ? { scope: configuration.scope } : {}),
    cryptographic_binding_methods_supported: ['jwk'],
    credential_signing_alg_values_supported: [...SIGNING_ALGS],
    proof_types_supported: { jwt: { proof_signing_alg_values_supported: [...PROOF_ALGS] } },
    credential_metadata: {
      ...(display.length > 0 ? { display } : {}),
      claims: claimsDescription(configuration, design),
    },
  };
  return configuration.format === 'dc+sd-jwt'
    ? { ...common, vct: configuration.vct }
    : { ...common, credential_definition: { type: ['VerifiableCredential', ...(configuration.type ?? [])] } };
}

/** The Credential Issuer Metadata (OpenID4VCI 1.0 §12.2.4) of one tenant. */
export function issuerMetadata(
  config: Oid4vciConfig,
  endpoint: TenantEndpoint,
  authorizationServer: string,
  designs: Map<string, ConfigurationDisplay | null>,
): Record<string, unknown> {
  const binding = config.tenants[endpoint.tenantId]!;
  return {
    credential_issuer: endpoint.credentialIssuer,
    authorization_servers: [authorizationServer],
    credential_endpoint: endpoint.credentialEndpoint,
    nonce_endpoint: endpoint.nonceEndpoint,
    deferred_credential_endpoint: endpoint.deferredCredentialEndpoint,
    notification_endpoint: endpoint.notificationEndpoint,
    // §12.2.4: batch_size is at least 2; one proof per request needs no announcement.
    ...(config.batchSize > 1 ? { batch_credential_issuance: { batch_size: config.batchSize } } : {}),
    ...(binding.display.length > 0 ? { display: binding.display } : {}),
    credential_configurations_supported: Object.fromEntries(
      Object.entries(config.credentialConfigurations).map(([id, c]) => [
        id,
        credentialConfigurationMetadata(c, designs.get(id) ?? null),
      ]),
    ),
  };
}
