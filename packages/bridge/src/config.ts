import Type, { type Static } from 'typebox';
import { IdvConfigSchema } from './idv/config.js';
import { ReconciliationConfigSchema } from './reconciliation/config.js';

/**
 * The `bridge` configuration section (000 §2.2, §8; docs in packages/bridge/README.md#configuration). The composition
 * root adds it to the server schema as `bridge: BridgeConfigSchema`; every key has a default, so an empty section is
 * a working development configuration. Names carry their unit.
 */

/**
 * A trusted issuer of a credential query (000 §2.2 trusted_issuers): a DID (did:jwk, did:key), a pinned public JWK
 * (JSON text), or an X.509 trust anchor (PEM). A plain string is read by its shape: `did:...`, `{...}` or
 * `-----BEGIN CERTIFICATE-----...`. An X.509 entry may also name extended key usages (OIDs, RFC 5280 §4.2.1.12)
 * that the leaf of the issuer's x5c chain must all carry.
 */
export const TrustedIssuerSchema = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object(
    {
      kind: Type.Union([Type.Literal('did'), Type.Literal('jwk')]),
      value: Type.String({ minLength: 1 }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      kind: Type.Literal('x509'),
      value: Type.String({ minLength: 1 }),
      extendedKeyUsage: Type.Optional(
        Type.Array(Type.String({ pattern: '^[0-2](\\.(0|[1-9][0-9]*))+$' }), { minItems: 1, maxItems: 16 }),
      ),
    },
    { additionalProperties: false },
  ),
]);

export const QueryClaimSchema = Type.Object(
  {
    /** JSONPath of the claim: `$.credentialSubject.<claim>` (jwt_vc_json) or `$.<claim>` (dc+sd-jwt). */
    path: Type.String({ pattern: '^\\$', minLength: 2 }),
    /** A missing required claim fails the presentation (check `dcql`); optional claims are asked for, not demanded. */
    required: Type.Boolean({ default: false }),
  },
  { additionalProperties: false },
);

export const CredentialQuerySchema = Type.Object(
  {
    /** Credential query id of the DCQL query (the key of the wallet's vp_token). */
    id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    /** `jwt_vc` (000 §2.2) is read as `jwt_vc_json`. */
    format: Type.Union([Type.Literal('dc+sd-jwt'), Type.Literal('jwt_vc_json'), Type.Literal('jwt_vc')]),
    /** SD-JWT VC `vct`, or the W3C VC type (e.g. `UniversityDegreeCredential`). */
    type: Type.String({ minLength: 1 }),
    claims: Type.Array(QueryClaimSchema, { minItems: 1 }),
    /** Only credentials from these issuers are accepted (000 §2.2). */
    trusted_issuers: Type.Array(TrustedIssuerSchema, { default: [] }),
  },
  { additionalProperties: false },
);

/** A DCQL credential set (OID4VP §6.2): the vp_token answers one option (a list of credential query ids). */
export const CredentialSetSchema = Type.Object(
  {
    options: Type.Array(Type.Array(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }), { minItems: 1 }), {
      minItems: 1,
    }),
    required: Type.Boolean({ default: true }),
  },
  { additionalProperties: false },
);

export const PresentationQuerySchema = Type.Object(
  {
    credentials: Type.Array(CredentialQuerySchema, { minItems: 1 }),
    /** Alternatives (OID4VP §6.2); absent: every credential query must be answered. */
    credential_sets: Type.Optional(Type.Array(CredentialSetSchema, { minItems: 1 })),
  },
  { additionalProperties: false },
);

const WalletLoginOptionSchema = Type.Object(
  {
    format: Type.Union([Type.Literal('dc+sd-jwt'), Type.Literal('jwt_vc_json'), Type.Literal('jwt_vc')]),
    type: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);

export const BridgeConfigSchema = Type.Object(
  {
    /**
     * Base URL the wallet reaches (request and response endpoints). Default `http://localhost:8090`. With
     * `x509_san_dns` its host must equal the certificate's DNS name (OID4VP §5.9.3).
     */
    publicBaseUrl: Type.String({ pattern: '^https?://[^/?#]+$', default: 'http://localhost:8090' }),
    /** Session lifetime from creation (000 §2.1, §8): default 300 s; 600 to 900 s is advised when IDV is used. */
    sessionTimeoutSeconds: Type.Integer({ minimum: 30, maximum: 86_400, default: 300 }),
    /**
     * Responses that may fail verification before the session ends in ERROR (README "Rejected responses"). Anyone who
     * sees the QR code can post to the response URI: a failed response is recorded and the session stays open for a
     * valid one until this many failed. Default 3; 1 ends the session at the first failure.
     */
    maxFailedResponses: Type.Integer({ minimum: 1, maximum: 20, default: 3 }),
    /** Client Identifier Prefix of the verifier (OID4VP §5.9.3). Default `x509_san_dns`. */
    clientIdPrefix: Type.Union(
      [Type.Literal('x509_san_dns'), Type.Literal('x509_hash'), Type.Literal('decentralized_identifier')],
      {
        default: 'x509_san_dns',
      },
    ),
    /** `direct_post.jwt` (encrypted response, HAIP §5) by default; `direct_post` is allowed. */
    responseMode: Type.Union([Type.Literal('direct_post.jwt'), Type.Literal('direct_post')], {
      default: 'direct_post.jwt',
    }),
    requestSigning: Type.Object(
      {
        /** Key-manager alias of the ES256 key that signs request objects. Default `bridge-request-signing`. */
        keyAlias: Type.String({ minLength: 1, default: 'bridge-request-signing' }),
        /**
         * PEM certificate chain, leaf first, whose leaf holds the public key of `keyAlias`. Absent: outside production
         * a self-signed certificate for the publicBaseUrl host is generated (signed through the key manager) and
         * announced as a development default; under production it must be configured for the x509 prefixes.
         */
        certificateChainPem: Type.Optional(Type.String({ minLength: 1 })),
        /** Validity of a generated development certificate. Default 365 days. */
        generatedCertificateDays: Type.Integer({ minimum: 1, maximum: 3650, default: 365 }),
      },
      { default: {}, additionalProperties: false },
    ),
    /** Named DCQL queries, queryId → query (000 §2.2). `wallet-login` is added from `walletLogin` unless defined here. */
    queries: Type.Record(Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }), PresentationQuerySchema, { default: {} }),
    /**
     * The reference query `wallet-login` (000 §2.2): the service claim (platform `deployment.serviceClaim`) and
     * eduperson_principal_name required; email, given_name, family_name optional.
     */
    walletLogin: Type.Object(
      {
        format: Type.Union([Type.Literal('dc+sd-jwt'), Type.Literal('jwt_vc_json'), Type.Literal('jwt_vc')], {
          default: 'dc+sd-jwt',
        }),
        /** vct (dc+sd-jwt) or VC type (jwt_vc_json). */
        type: Type.String({ minLength: 1, default: 'urn:tessera:vct:wallet-login' }),
        /**
         * A second credential the wallet may present instead (DCQL `credential_sets` with two options, OID4VP §6.2),
         * e.g. `{format: jwt_vc_json, type: TesseraIdentityCredential}`; same claims and trusted issuers. Absent: the
         * development profile offers the other format (README "Wallet login query"), production only `format`.
         */
        alternative: Type.Optional(WalletLoginOptionSchema),
        trustedIssuers: Type.Array(TrustedIssuerSchema, { default: [] }),
      },
      { default: {}, additionalProperties: false },
    ),
    statusListCache: Type.Object(
      {
        /**
         * Upper bound of how long a fetched status list is used, i.e. the longest a revocation may go unseen; the
         * list's `ttl`, `Cache-Control`/`Expires` and `exp` may shorten it. Default 300 s under the production
         * profile, 30 s otherwise (README "Status lists").
         */
        maxTtlSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
        /**
         * Lower bound of a list's use when its `ttl` or HTTP headers ask for less (`no-cache`), so that a burst of
         * sign-ins does not refetch it each time; never past the list's `exp`. Default 10 s.
         */
        minTtlSeconds: Type.Integer({ minimum: 0, maximum: 3600, default: 10 }),
        /** Bound of one status-list fetch. Default 5 s. */
        fetchTimeoutSeconds: Type.Integer({ minimum: 1, maximum: 60, default: 5 }),
        /** Largest status-list response accepted. Default 1 MiB. */
        maxResponseBytes: Type.Integer({ minimum: 1024, default: 1_048_576 }),
        /**
         * Origins (`scheme://host:port`) that may be fetched although they are not https or resolve to loopback or
         * private addresses: development and test fixtures only. Default none.
         */
        allowPrivateNetworkOrigins: Type.Array(Type.String({ pattern: '^https?://[^/?#]+$' }), { default: [] }),
      },
      { default: {}, additionalProperties: false },
    ),
    /** Largest age of a key-binding JWT (or VP JWT) `iat`. Default 300 s. */
    kbJwtMaxAgeSeconds: Type.Integer({ minimum: 1, maximum: 3600, default: 300 }),
    /** Clock skew tolerated on iat, nbf and exp of presented material. Default 30 s. */
    clockSkewSeconds: Type.Integer({ minimum: 0, maximum: 300, default: 30 }),
    identityResolution: Type.Object(
      {
        /**
         * Identifier types matched against the identity store when no binding exists (AUTO_MATCH_BY_ATTRIBUTE).
         * Default none: an unknown holder goes through IDV unless the operator opts in, e.g. `['SERVICE_ID']`.
         */
        autoMatchAttributes: Type.Array(Type.Union([Type.Literal('SERVICE_ID'), Type.Literal('EPPN')]), {
          default: [],
        }),
        /**
         * `credential-key`: the holder key of the presentation (RFC 7638 thumbprint of the key-binding key).
         * `issuer-subject`: issuer + `subjectClaim`, for wallets that use a fresh key per credential.
         */
        holderKeyStrategy: Type.Union([Type.Literal('credential-key'), Type.Literal('issuer-subject')], {
          default: 'credential-key',
        }),
        /** Claim naming the holder for `issuer-subject`. Default `sub`. */
        subjectClaim: Type.String({ minLength: 1, default: 'sub' }),
        /**
         * Match confirmation (issue 14 §11, README "Match confirmation"): attribute matches that are not certain
         * (one identity lacking an identifying claim the wallet presented, or several identities) are offered to the
         * holder to confirm (MATCH_CONFIRMATION_REQUIRED) instead of going straight to IDV.
         */
        matchConfirmation: Type.Object(
          {
            /** Default true; false: several matches go to IDV and one match is taken as before. */
            enabled: Type.Boolean({ default: true }),
            /** More candidates than this go to IDV (a long list is no choice). Default 5. */
            maxCandidates: Type.Integer({ minimum: 1, maximum: 10, default: 5 }),
            /** Shown beside a candidate that came from an institutional login. Default none. */
            institutionName: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
          },
          { default: {}, additionalProperties: false },
        ),
      },
      { default: {}, additionalProperties: false },
    ),
    /** Scope the portal backend's token must hold for the session API (000 §5: service-to-service). */
    sessionClientsScope: Type.String({ minLength: 1, default: 'bridge:sessions' }),
    redeem: Type.Object(
      {
        /** Scope the token service's token must hold for POST .../redeem (flows.md step 7). */
        scope: Type.String({ minLength: 1, default: 'bridge:redeem' }),
        /** A session is redeemable this long after it completed. Default 120 s. */
        windowSeconds: Type.Integer({ minimum: 1, maximum: 3600, default: 120 }),
      },
      { default: {}, additionalProperties: false },
    ),
    retention: Type.Object(
      {
        /** Sessions are deleted this long after their expiry (the cleanup job, 000 §8). Default 3600 s. */
        sessionSeconds: Type.Integer({ minimum: 0, default: 3600 }),
        /** Digests of accepted presentations are kept this long for replay detection. Default 86400 s. */
        usedPresentationSeconds: Type.Integer({ minimum: 60, default: 86_400 }),
      },
      { default: {}, additionalProperties: false },
    ),
    /** CSP frame-ancestors of the QR page; default none (the page may not be framed). */
    qrPageFrameAncestors: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
    /** Identity verification at the institutional provider (000 §4.2; README "Identity verification"). */
    idv: IdvConfigSchema,
    /** The external reconciliation API (000 §2.7, §4.3, §5; README "External reconciliation API"). */
    reconciliation: ReconciliationConfigSchema,
  },
  { default: {}, additionalProperties: false },
);

export type BridgeConfig = Static<typeof BridgeConfigSchema>;
export type TrustedIssuerConfig = Static<typeof TrustedIssuerSchema>;
export type PresentationQueryConfig = Static<typeof PresentationQuerySchema>;
