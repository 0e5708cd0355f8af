import Type, { type Static } from 'typebox';

const Display = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    locale: Type.Optional(Type.String({ minLength: 1 })),
    description: Type.Optional(Type.String()),
    background_color: Type.Optional(Type.String()),
    text_color: Type.Optional(Type.String()),
    logo: Type.Optional(Type.Object({ uri: Type.String(), alt_text: Type.Optional(Type.String()) })),
  },
  { additionalProperties: false },
);

/** One claim of a credential configuration: its path (dot notation), display and whether it must be present. */
const ClaimConfig = Type.Object(
  {
    path: Type.String({ minLength: 1, pattern: '^[^.]+(\\.[^.]+)*$' }),
    mandatory: Type.Boolean({ default: true }),
    /** SD-JWT VC: selectively disclosable (default) or always disclosed. */
    selectivelyDisclosable: Type.Boolean({ default: true }),
    display: Type.Array(Display, { default: [] }),
  },
  { additionalProperties: false },
);

/**
 * A credential configuration this issuer offers (OpenID4VCI 1.0 §12.2.4 `credential_configurations_supported`).
 * `pipelineId` names the tenant's stored pipeline whose claims bindings fill it; without it, an inline pipeline binds
 * each claim to the attribute of the same path (an offer's `credentialDataSupplierInput` fills it).
 */
export const CredentialConfigurationSchema = Type.Object(
  {
    format: Type.Union([Type.Literal('dc+sd-jwt'), Type.Literal('jwt_vc_json')]),
    /** dc+sd-jwt: the type (SD-JWT VC §3.2.2.1). */
    vct: Type.Optional(Type.String({ minLength: 1 })),
    /** jwt_vc_json: the VC types after `VerifiableCredential`. */
    type: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    scope: Type.Optional(Type.String({ minLength: 1 })),
    pipelineId: Type.Optional(Type.String({ minLength: 1 })),
    /** Whether an incomplete session may be answered as deferred (inline pipeline only). */
    deferrable: Type.Boolean({ default: false }),
    claims: Type.Array(ClaimConfig, { default: [] }),
    display: Type.Array(Display, { default: [] }),
    /** A design of the registry bound by CREDENTIAL_CONFIGURATION_ID (default) or VCT supplies `display`. */
    design: Type.Boolean({ default: true }),
    /** Lifetime of an issued credential (exp - iat). Default 365 days. */
    validitySeconds: Type.Integer({ minimum: 60, default: 31_536_000 }),
  },
  { additionalProperties: false },
);

/** The tenant_public_endpoint binding of one tenant (001 §5): its credential issuer identifier. */
const TenantBinding = Type.Object(
  {
    /** The credential issuer identifier (OpenID4VCI 1.0 §12.2.1): https URL, may carry a path. */
    credentialIssuer: Type.String({ pattern: '^https?://[^?#]+$' }),
    /** The issuer's display (metadata `display`) when no issuer design is bound. */
    display: Type.Array(Display, { default: [] }),
  },
  { additionalProperties: false },
);

/** The `oid4vci` configuration section (packages/oid4vci-issuer/README.md). */
export const Oid4vciConfigSchema = Type.Object(
  {
    /** Tenant id → its binding. A tenant without one is refused at every wallet-facing endpoint (no fallback). */
    tenants: Type.Record(Type.String(), TenantBinding, { default: {} }),
    credentialConfigurations: Type.Record(
      Type.String({ pattern: '^[A-Za-z0-9._:-]{1,128}$' }),
      CredentialConfigurationSchema,
      {
        default: {},
      },
    ),
    /** Lifetime of a c_nonce from the nonce endpoint (OpenID4VCI 1.0 §7). */
    nonceTtlSeconds: Type.Integer({ minimum: 10, maximum: 3600, default: 300 }),
    /** Accepted distance of a proof's `iat` from now (§8.2.1.1 leaves it to the issuer). */
    proofIatWindowSeconds: Type.Integer({ minimum: 5, maximum: 3600, default: 300 }),
    /** Most proofs in one request (`batch_credential_issuance.batch_size`, §12.2.4). */
    batchSize: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
    /** Access tokens at the credential endpoint must be DPoP-bound (HAIP 1.0 §4.4 asks it). */
    dpopRequired: Type.Boolean({ default: true }),
    /** Lifetime of an offer and its pre-authorized code. */
    offerTtlSeconds: Type.Integer({ minimum: 30, maximum: 86_400, default: 600 }),
    /** `pinLength` bounds (a numeric tx_code). */
    minPinLength: Type.Integer({ minimum: 4, maximum: 12, default: 4 }),
    maxPinLength: Type.Integer({ minimum: 4, maximum: 12, default: 8 }),
    /** `interval` of a deferred answer (§9.1), seconds. */
    deferredIntervalSeconds: Type.Integer({ minimum: 1, maximum: 3600, default: 5 }),
    /**
     * The status lists of the credentials are signed with the credential signing key (a verifier such as the
     * bridge takes a list only from the credential's own issuer key). Needs `oid4vci-issuer.{tenant}` among
     * `statusLists.extraKeyAliases` (the server configuration adds it). false: the status-list service's own key.
     */
    statusListSignedByIssuer: Type.Boolean({ default: true }),
    /** Status list series each credential gets an entry in (`@tessera/status-lists`). */
    statusPurpose: Type.Union([Type.Literal('revocation'), Type.Literal('suspension')], { default: 'revocation' }),
  },
  { default: {}, additionalProperties: false },
);

export type Oid4vciConfig = Static<typeof Oid4vciConfigSchema>;
export type CredentialConfiguration = Static<typeof CredentialConfigurationSchema>;
export type DisplayEntry = Static<typeof Display>;

/**
 * Contract C (issue 19): the credential issuer identifier bound to a tenant, without a trailing slash, or
 * `undefined` when the tenant has no tenant_public_endpoint binding (001 §5: refused, no fallback). The token
 * service puts it in the `aud` of the access tokens it mints for the credential endpoint.
 */
export const credentialIssuerFor =
  (config: Oid4vciConfig) =>
  (tenantId: string): string | undefined =>
    config.tenants[tenantId]?.credentialIssuer.replace(/\/+$/, '');

/** The key alias of `statusLists.extraKeyAliases` that lets status lists be signed with the credential key. */
export const ISSUER_STATUS_LIST_KEY_ALIAS = 'oid4vci-issuer.{tenant}';
