import Type, { type Static } from 'typebox';

/**
 * The `tokenService` configuration section (000 §2.8, §4.4, §8). Client entries use the specification's own
 * key names (client-id, client-secret, redirect-uris, grant-types, scopes, token-settings).
 */
const Duration = Type.String({ pattern: '^P(?:\\d+W)?(?:\\d+D)?(?:T(?:\\d+H)?(?:\\d+M)?(?:\\d+(?:\\.\\d+)?S)?)?$' });

export const ClientConfigSchema = Type.Object(
  {
    /** Defaults to the key of the entry. */
    'client-id': Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /**
     * `native` for an app on the user's device (OIDC Dynamic Client Registration `application_type`): only a
     * native or a public client may vary the port of a loopback redirect URI (RFC 8252 §7.3). Default `web`.
     */
    'application-type': Type.Union([Type.Literal('web'), Type.Literal('native')], { default: 'web' }),
    /** The name people see for the client (OIDC Dynamic Client Registration `client_name`): the portal shows it. */
    'client-name': Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** `{plain}secret` (development only) or `{argon2}$argon2id$...` (production). Absent: a public client. */
    'client-secret': Type.Optional(Type.String({ minLength: 1 })),
    'redirect-uris': Type.Array(Type.String({ minLength: 1 }), { default: [] }),
    'grant-types': Type.Array(
      Type.Union([
        Type.Literal('authorization_code'),
        Type.Literal('refresh_token'),
        Type.Literal('client_credentials'),
      ]),
      { default: ['authorization_code', 'refresh_token'] },
    ),
    scopes: Type.Array(Type.String({ minLength: 1 }), { default: ['openid'] }),
    'token-settings': Type.Object(
      {
        'access-token-time-to-live': { ...Duration, default: 'PT1H' },
        'refresh-token-time-to-live': { ...Duration, default: 'P1D' },
        'id-token-time-to-live': { ...Duration, default: 'PT1H' },
        /** PKCE is mandatory for every authorization code grant (000 §5): false is refused at start. */
        'require-pkce': Type.Boolean({ default: true }),
      },
      { default: {}, additionalProperties: false },
    ),
    /** Tenant the client belongs to (default: the configured default tenant). */
    tenant: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' })),
    /** Audience of client_credentials access tokens (default: the client id). */
    audience: Type.Optional(Type.String({ minLength: 1 })),
    /**
     * Roles carried in the client's client_credentials access tokens, under the platform's `auth.rolesClaim`
     * (e.g. `tenant-admin` for an administration client of its tenant). Empty by default.
     */
    roles: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
  },
  { additionalProperties: false },
);

/** The `tokenService.dpop` section (RFC 9449; 000 §5: off by default). docs/dpop.md. */
export const DpopConfigSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: false }),
    /** Proofs at the token and userinfo endpoints must carry a server nonce (RFC 9449 §8, §9). */
    nonceRequired: Type.Boolean({ default: false }),
    /** Accepted distance of a proof's iat from now, either side; 5 s of clock skew come on top (RFC 9449 §11.1). */
    iatWindowSeconds: Type.Integer({ minimum: 1, maximum: 300, default: 60 }),
    /**
     * A secret shared by every replica (base64url, at least 32 bytes) from which nonces are derived. Absent: they
     * are derived from the key manager's HS256 key `token-service:<tenant>:dpop-nonce`, which replicas share.
     */
    nonceSecret: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43,}$' })),
  },
  { default: {}, additionalProperties: false },
);

/**
 * The `tokenService.oid4vci` section: the OpenID4VCI 1.0 grants the token service honours for the credential
 * issuer (pre-authorized code §4.1.1 with tx_code, issuer_state §5.1.3). README "OpenID4VCI grants".
 */
export const Oid4vciGrantsConfigSchema = Type.Object(
  {
    /** Lifetime of a pre-authorized code when the offer names none (short-lived, §4.1.1); an offer may ask up to the maximum. */
    preAuthorizedCodeTtlSeconds: Type.Integer({ minimum: 10, maximum: 86400, default: 300 }),
    /** Lifetime of an issuer_state when the offer names none. */
    issuerStateTtlSeconds: Type.Integer({ minimum: 10, maximum: 86400, default: 600 }),
    /** Upper bound of the lifetime an offer may ask for either. */
    maxTtlSeconds: Type.Integer({ minimum: 10, maximum: 604800, default: 86400 }),
    /** Wrong tx_code values accepted for one pre-authorized code; the next wrong one locks the code for good. */
    txCodeMaxAttempts: Type.Integer({ minimum: 1, maximum: 100, default: 5 }),
    /** Lifetime of the access token for the credential endpoint. */
    accessTokenTtlSeconds: Type.Integer({ minimum: 30, maximum: 86400, default: 600 }),
    /**
     * HAIP 1.0: every OpenID4VCI token request must carry a DPoP proof (the token is always sender-constrained).
     * Without it a proof, when presented, still binds the token. Either way independent of `dpop.enabled`, which
     * governs the other grants and userinfo.
     */
    requireDpop: Type.Boolean({ default: false }),
  },
  { default: {}, additionalProperties: false },
);

export const TokenServiceConfigSchema = Type.Object(
  {
    /** Issuer of the default tenant; must be the URL the relying parties reach (000 §2.9 iss). */
    issuer: Type.String({ default: 'http://127.0.0.1:8080' }),
    /** Issuer per tenant, for tenants served on their own host. */
    tenantIssuers: Type.Record(Type.String(), Type.String(), { default: {} }),
    clients: Type.Record(Type.String(), ClientConfigSchema, { default: {} }),
    authorizationCodeTtlSeconds: Type.Integer({ minimum: 5, maximum: 600, default: 60 }),
    /** How long a login may take (upstream or wallet) before the relying party must start again. */
    loginTransactionTtlSeconds: Type.Integer({ minimum: 30, default: 600 }),
    /** Reuse of a rotated refresh token within this window is tolerated (concurrent clients); 0 = off. */
    refreshTokenReuseGraceSeconds: Type.Integer({ minimum: 0, maximum: 60, default: 0 }),
    /** A verified client secret is remembered (as a hash) this long, so that slow password hashes are paid once. */
    clientSecretCacheSeconds: Type.Integer({ minimum: 0, default: 300 }),
    /** Upstream institutional OpenID provider for federated login (000 §4.4). */
    upstream: Type.Object(
      {
        issuer: Type.Optional(Type.String({ minLength: 1 })),
        clientId: Type.Optional(Type.String({ minLength: 1 })),
        clientSecret: Type.Optional(Type.String({ minLength: 1 })),
        scopes: Type.Array(Type.String(), { default: ['openid', 'profile', 'email'] }),
        timeoutSeconds: Type.Integer({ minimum: 1, default: 10 }),
        /** acr when the provider sends none. */
        defaultAcr: Type.String({ default: 'urn:tessera:federation' }),
        /**
         * The acr values the institutional provider issues; federated tokens carry the provider's value, so
         * discovery publishes these beside the wallet's and the default (issue 14 §8).
         */
        acrValues: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
      },
      { default: {}, additionalProperties: false },
    ),
    /** The bridge, for wallet login (login_hint=oid4vp:{sessionId}). */
    bridge: Type.Object(
      {
        url: Type.String({ default: 'http://127.0.0.1:8090' }),
        /** Scope of the service token the token service presents to the bridge's redeem endpoint. */
        redeemScope: Type.String({ default: 'bridge:redeem' }),
        /** Audience of that service token. */
        audience: Type.String({ default: 'tessera-services' }),
        /** Bounded wait for the session to reach COMPLETED. */
        waitSeconds: Type.Integer({ minimum: 0, maximum: 60, default: 10 }),
        timeoutSeconds: Type.Integer({ minimum: 1, default: 5 }),
      },
      { default: {}, additionalProperties: false },
    ),
    /** DPoP (RFC 9449): sender-constrained tokens; off by default (000 §5). docs/dpop.md. */
    dpop: DpopConfigSchema,
    /** OpenID4VCI grants (issue 19): pre-authorized code with tx_code, issuer_state. */
    oid4vci: Oid4vciGrantsConfigSchema,
  },
  { default: {}, additionalProperties: false },
);

export type TokenServiceConfig = Static<typeof TokenServiceConfigSchema>;
export type ClientConfig = Static<typeof ClientConfigSchema>;
export type Oid4vciGrantsConfig = Static<typeof Oid4vciGrantsConfigSchema>;
