import Type, { type Static } from 'typebox';

/** The `issuance` configuration section (docs/configuration.md; decisions in packages/issuance/README.md). */
export const IssuanceConfigSchema = Type.Object(
  {
    /** Bounds of a session's `ttl_seconds` (001 §8 leaves them open): 1 minute to 7 days, default 1 hour. */
    sessionTtl: Type.Object(
      {
        defaultSeconds: Type.Integer({ minimum: 60, maximum: 604_800, default: 3600 }),
        minSeconds: Type.Integer({ minimum: 1, maximum: 604_800, default: 60 }),
        maxSeconds: Type.Integer({ minimum: 60, maximum: 2_592_000, default: 604_800 }),
      },
      { default: {}, additionalProperties: false },
    ),
    /**
     * Roles that may read a session's decrypted attribute bag (001 §5: "attribute readback for narrow support or
     * audit roles"). A platform administrator always may; a tenant administrator only when listed here.
     */
    attributeReaderRoles: Type.Array(Type.String({ minLength: 1 }), {
      default: ['issuance-support', 'issuance-auditor'],
    }),
    /** Lifetime of a callback capability token (001 §5 leaves it open): 15 minutes. */
    callbackTokenTtlSeconds: Type.Integer({ minimum: 30, maximum: 86_400, default: 900 }),
    /**
     * Connector registrations (001 §4.2, §6), per tenant: the id a pipeline's invocation bindings name, the URL
     * the signed request goes to, its Standard Webhooks secret (`whsec_…`, shared with the connector) and the
     * timeout of one request. A binding whose connector is not registered fails like an unreachable one.
     */
    connectors: Type.Array(
      Type.Object(
        {
          tenantId: Type.String({ minLength: 1 }),
          connectorId: Type.String({ minLength: 1 }),
          url: Type.String({ minLength: 1 }),
          secret: Type.String({ minLength: 8 }),
          timeoutMs: Type.Integer({ minimum: 100, maximum: 120_000, default: 5000 }),
        },
        { additionalProperties: false },
      ),
      { default: [] },
    ),
    /** How connectors are called (README "Connectors"). */
    connectorCalls: Type.Object(
      {
        /**
         * syncWaitWindow (001 §8 leaves its default open): how long an `advance` waits for the synchronous
         * connectors of the phases it enters before it answers, so that the credential request answers 202.
         */
        syncWaitWindowMs: Type.Integer({ minimum: 0, maximum: 60_000, default: 2000 }),
        /** Attempts of one invocation (network error, timeout, 408, 429, 5xx are retried). */
        attempts: Type.Integer({ minimum: 1, maximum: 10, default: 3 }),
        /** Backoff between attempts: full jitter in [0, min(cap, base·2^(n-1))]. */
        retryBaseMs: Type.Integer({ minimum: 0, maximum: 60_000, default: 200 }),
        retryCapMs: Type.Integer({ minimum: 0, maximum: 300_000, default: 2000 }),
        /** Consecutive failed attempts that open a connector's circuit, and how long it stays open. */
        breakerFailureThreshold: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
        breakerCooldownMs: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 30_000 }),
        /**
         * How long an invocation stays with the replica that claimed it: one still `invoking` after this (its
         * replica stopped mid-invocation) is taken over by the next `advance`. Longer than attempts × (timeout +
         * backoff).
         */
        invocationLeaseMs: Type.Integer({ minimum: 1000, maximum: 3_600_000, default: 120_000 }),
        /** Largest synchronous answer read (bytes). */
        responseLimitBytes: Type.Integer({ minimum: 1024, maximum: 4_194_304, default: 262_144 }),
        /** Origins exempt from the SSRF address rules (development and test connectors on loopback). */
        allowPrivateOrigins: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
        /** Plain http to public addresses (development only). */
        allowHttp: Type.Boolean({ default: false }),
        /** The public base URL of the issuance role, for the callback URL handed to connectors. */
        callbackBaseUrl: Type.String({ minLength: 1, default: 'http://127.0.0.1:8096' }),
      },
      { default: {}, additionalProperties: false },
    ),
  },
  { default: {}, additionalProperties: false },
);

export type IssuanceConfig = Static<typeof IssuanceConfigSchema>;
