import Type, { type Static } from 'typebox';

/** The `statusLists` configuration section (packages/status-lists/README.md). */
export const StatusListsConfigSchema = Type.Object(
  {
    /**
     * Public base URL of the status-lists role: lists are published at `<publicBaseUrl>/status-lists/<id>` (the
     * URI credentials carry) and it is the issuer whose key set `/.well-known/jwt-vc-issuer` publishes.
     */
    publicBaseUrl: Type.String({ default: 'http://127.0.0.1:8098' }),
    /** Per-tenant public base URLs (tenant id → URL), for tenants served on their own host name. */
    tenantPublicBaseUrls: Type.Record(Type.String(), Type.String(), { default: {} }),
    /** Entries of a list when the request names no length: 131,072 (16 KiB at one bit, the W3C minimum). */
    defaultLength: Type.Integer({ minimum: 1, default: 131_072 }),
    /** The least length a request may ask for (W3C herd privacy); lower it only for tests and demos. */
    minLength: Type.Integer({ minimum: 1, default: 131_072 }),
    maxLength: Type.Integer({ minimum: 1, maximum: 100_000_000, default: 10_000_000 }),
    /** `ttl` of the Status List Token and Cache-Control max-age of the publication (Token Status List §5.1). */
    ttlSeconds: Type.Integer({ minimum: 1, default: 300 }),
    /**
     * How long a replica answers reads of a list from the signed form it holds before it looks at the list again
     * (issue 16 §4: lazy re-signing, debounced): a status change is published within this time, and never later
     * than the list's ttl. Each replica then reads a list's version at most once and signs it at most once per
     * interval, however many reads and changes arrive. 0: every read looks (a change is visible to the next read).
     */
    publicationRefreshSeconds: Type.Number({ minimum: 0, maximum: 3600, default: 1 }),
    /** Lifetime (exp - iat) of each signed list; it is signed again after half of it. */
    validitySeconds: Type.Integer({ minimum: 60, default: 86_400 }),
    /**
     * A scope that lets a client token (the issuance service) run the write commands without the tenant
     * administrator role.
     */
    serviceScope: Type.String({ minLength: 1, default: 'tessera:status-lists' }),
    /**
     * Key-manager aliases besides the tenant's own status-list keys that `keyRef` may name (`{tenant}` stands for
     * the tenant id), e.g. `issuer:{tenant}` so that a list is signed by the key of the credentials it covers.
     */
    extraKeyAliases: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
  },
  { default: {}, additionalProperties: false },
);

export type StatusListsConfig = Static<typeof StatusListsConfigSchema>;
