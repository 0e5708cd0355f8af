import Type, { type Static } from 'typebox';

/**
 * The `bridge.reconciliation` configuration section: the external reconciliation API (000 §2.7, §4.3, §5; README
 * "External reconciliation API"). The token issuers are the platform's (`auth.issuers`: issuer and jwks-uri of
 * 000 §5); this section names the audience a token must carry, the clients and their projections, and `enabled`.
 */

/** The scopes of the API (000 §5 names reconciliation:read and recommends reconciliation:delete for erasure). */
export const RECONCILIATION_SCOPES = {
  read: 'reconciliation:read',
  write: 'reconciliation:write',
  delete: 'reconciliation:delete',
} as const;

/** An auxiliary data category: a path segment chosen by the operator (letters, digits, `.`, `_`, `-`). */
export const CATEGORY_PATTERN = '^[A-Za-z0-9._-]{1,64}$';

/**
 * One client's projection (000 §2.7), keyed by the client id read from the token's azp or client_id claim. All
 * three lists are required (an empty list is allowed): a client's rights are never implied by a default.
 */
export const ReconciliationClientSchema = Type.Object(
  {
    /** The scopes this client may use here; a token's scope outside this list is ignored. */
    scopes: Type.Array(Type.String({ minLength: 1 })),
    /** The claims that may leave towards this client; every other claim is omitted (000 §5 projection). */
    'projected-claims': Type.Array(Type.String({ minLength: 1, maxLength: 128 })),
    /** The auxiliary data categories this client may read and write. */
    'auxiliary-categories': Type.Array(Type.String({ pattern: CATEGORY_PATTERN })),
    /**
     * The issuer whose tokens name this client (issue 13 §1): the same client id from another trusted issuer is
     * not this client. The composition root fills in the deployment's own token service when it is absent.
     */
    issuer: Type.Optional(Type.String({ minLength: 1 })),
    /** The tenant this client acts in (default: the deployment's default tenant). */
    tenant: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' })),
  },
  { additionalProperties: false },
);

export const ReconciliationConfigSchema = Type.Object(
  {
    /** false: the API is not registered at all (its paths answer 404). Default true. */
    enabled: Type.Boolean({ default: true }),
    /** The audience (`aud`) an access token must name to be accepted here. Default `tessera-reconciliation`. */
    audience: Type.String({ minLength: 1, default: 'tessera-reconciliation' }),
    /** Client id → projection. A client not listed is refused with 403 insufficient_scope (000 §2.7). Default none. */
    clients: Type.Record(Type.String({ minLength: 1, maxLength: 256 }), ReconciliationClientSchema, { default: {} }),
    dpop: Type.Object(
      {
        /** Accept `Authorization: DPoP` with a proof (RFC 9449). Default true. */
        enabled: Type.Boolean({ default: true }),
        /**
         * The external base URL clients address (the proof's `htu` is compared with it plus the request path).
         * Default: the bridge's `publicBaseUrl`.
         */
        baseUrl: Type.Optional(Type.String({ pattern: '^https?://[^?#]+$' })),
        /** Accepted distance of a proof's `iat` from now, either side (RFC 9449 §11.1). Default 60 s. */
        iatWindowSeconds: Type.Integer({ minimum: 1, maximum: 600, default: 60 }),
      },
      { default: {}, additionalProperties: false },
    ),
  },
  { default: {}, additionalProperties: false },
);

export type ReconciliationConfig = Static<typeof ReconciliationConfigSchema>;
export type ReconciliationClientConfig = Static<typeof ReconciliationClientSchema>;
