import Type, { type Static } from 'typebox';

/**
 * The `bridge.idv` configuration section: identity verification at the institutional OpenID provider (000 §2.4,
 * §3.2, §4.2; README "Identity verification"). Every key has a default except the provider's issuer and client
 * credentials: without them the IDV endpoints answer 503 (the rest of the bridge works).
 */
export const IdvProviderSchema = Type.Object(
  {
    /** Issuer URL of the institutional provider (discovery at `<issuer>/.well-known/openid-configuration`). */
    issuer: Type.Optional(Type.String({ pattern: '^https?://[^?#]+$' })),
    clientId: Type.Optional(Type.String({ minLength: 1 })),
    clientSecret: Type.Optional(Type.String({ minLength: 1 })),
    /** Scopes asked for; the service claim's scope releases it at the development provider. */
    scopes: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      default: ['openid', 'profile', 'email', 'service_id'],
    }),
    /** Bound of each call to the provider (discovery, token, key set, UserInfo). Default 10 s. */
    timeoutSeconds: Type.Integer({ minimum: 1, maximum: 120, default: 10 }),
    /** 000 §2.4 providerId: the fixed identifier of the configured provider. */
    providerId: Type.String({ pattern: '^[A-Za-z0-9._:-]{1,64}$', default: 'institutional-idp' }),
  },
  { default: {}, additionalProperties: false },
);

export const IdvConfigSchema = Type.Object(
  {
    provider: IdvProviderSchema,
    /** Base URL of the portal; the callback sends the browser to `{portalUrl}/wallet/callback` (000 §4.2 (7)). */
    portalUrl: Type.String({ pattern: '^https?://[^?#]+$', default: 'http://127.0.0.1:3000' }),
    /** Lifetime of one attempt and of its state (000 §8 "reconciliation session lifetime: typically 5 minutes"). */
    stateTtlSeconds: Type.Integer({ minimum: 30, maximum: 3600, default: 300 }),
    /** Also read UserInfo after the ID token (000 §4.2 (4) "optionally"); its failure is not an IDV failure. */
    userinfo: Type.Boolean({ default: true }),
    /**
     * Claims the institutional login must carry beyond the minimum of 000 §2.4 (the service claim or sub); e.g.
     * `['service_id']` for a deployment that demands the service claim. Default none.
     */
    requiredClaims: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
    /**
     * The wallet credential's identifying claims compared with the institution's before a binding is made (issue 14
     * §1; README "Identity verification"). Default: the service claim (`deployment.serviceClaim`) and
     * `eduperson_principal_name`.
     */
    identifyingClaims: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    /**
     * `strict` (default): every identifying claim the wallet presented must be released by the institution with the
     * same value; `present`: only claims both carry are compared; `off`: no comparison. A disagreement ends the
     * attempt in ERROR `claims_mismatch`.
     */
    claimsMatch: Type.Union([Type.Literal('strict'), Type.Literal('present'), Type.Literal('off')], {
      default: 'strict',
    }),
  },
  { default: {}, additionalProperties: false },
);

export type IdvConfig = Static<typeof IdvConfigSchema>;
