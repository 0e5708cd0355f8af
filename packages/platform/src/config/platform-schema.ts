import Type, { type Static } from 'typebox';

/**
 * The platform's part of the configuration. Every key has a documented default (docs/configuration.md);
 * names carry their unit (`...Seconds`, `...Bytes`). Bounded contexts add their own sections in the
 * composition root (apps/server/src/config.ts).
 */
export const RoleNames = [
  'bridge',
  'token',
  'portal',
  'designs',
  'issuance',
  'status-lists',
  'parties',
  'signing',
] as const;
export type RoleName = (typeof RoleNames)[number];

const Port = (defaultPort: number) => Type.Integer({ minimum: 0, maximum: 65535, default: defaultPort });

export const PlatformConfigSchema = Type.Object(
  {
    /** development enables generated keys, the demo tenant and the embedded database; production refuses them unless configured. */
    profile: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
      default: 'development',
    }),
    roles: Type.Array(
      Type.Union([
        Type.Literal('bridge'),
        Type.Literal('token'),
        Type.Literal('portal'),
        Type.Literal('designs'),
        Type.Literal('issuance'),
        Type.Literal('status-lists'),
        Type.Literal('parties'),
        Type.Literal('signing'),
      ]),
      {
        default: ['bridge', 'token', 'portal', 'designs', 'issuance', 'status-lists', 'parties', 'signing'],
        minItems: 1,
      },
    ),
    /** Deployment-wide names the specification leaves to the operator (spec README: "the service", <vendor>). */
    deployment: Type.Object(
      {
        /** The deployment's subject-identifier claim: one name for the claim, the scope and the identifier type SERVICE_ID. */
        serviceClaim: Type.String({ pattern: '^[a-z][a-z0-9_]{0,62}$', default: 'service_id' }),
        /** Vendor segment of the wallet login acr `urn:<vendor>:oid4vp:vp`. */
        acrVendor: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', default: 'tessera' }),
      },
      { default: {}, additionalProperties: false },
    ),
    server: Type.Object(
      {
        host: Type.String({ default: '0.0.0.0' }),
        /**
         * Address of the management listener (/health, /ready, /version, /metrics, the audit API; issue 13 §3):
         * loopback by default, so that only the machine, a sidecar or a port forward reaches it. Set it to the
         * pod address (or 0.0.0.0) for a scraper on the cluster network.
         */
        managementHost: Type.String({ default: '127.0.0.1' }),
        /** Default ports per role (000 §1; 001 roles documented in docs/configuration.md). */
        ports: Type.Object(
          {
            bridge: Port(8090),
            tokenInternal: Port(8080),
            tokenExternal: Port(8092),
            portal: Port(3000),
            designs: Port(8094),
            issuance: Port(8096),
            statusLists: Port(8098),
            parties: Port(8100),
            signing: Port(8102),
            /** The management listener of every process (001 §4.5 "not for the public gateway"). */
            management: Port(9000),
            devIdp: Port(8300),
            demoRp: Port(8400),
          },
          { default: {}, additionalProperties: false },
        ),
        bodyLimitBytes: Type.Integer({ minimum: 1024, default: 1_048_576 }),
        /** Trust X-Forwarded-* from a proxy in front (off: a spoofed X-Forwarded-Host changes nothing). */
        trustProxy: Type.Boolean({ default: false }),
        shutdownGraceSeconds: Type.Integer({ minimum: 0, default: 10 }),
      },
      { default: {}, additionalProperties: false },
    ),
    database: Type.Object(
      {
        /** PostgreSQL connection string; without it the embedded PGlite database is used (development only). */
        url: Type.Optional(Type.String({ minLength: 1 })),
        maxPoolSize: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
        /** Data directory of the embedded database. */
        dataDir: Type.String({ default: './data/pglite' }),
        connectTimeoutSeconds: Type.Integer({ minimum: 1, default: 5 }),
        statementTimeoutSeconds: Type.Integer({ minimum: 1, default: 30 }),
        migrateOnStart: Type.Boolean({ default: true }),
      },
      { default: {}, additionalProperties: false },
    ),
    redis: Type.Object(
      { url: Type.Optional(Type.String({ minLength: 1 })), keyPrefix: Type.String({ default: 'tessera:' }) },
      { default: {}, additionalProperties: false },
    ),
    tenancy: Type.Object(
      {
        /** Tenant used when neither the token nor the Host header names one. */
        defaultTenant: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' })),
        /** Host name (without port) → tenant id. */
        hostMappings: Type.Record(Type.String(), Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }), {
          default: {},
        }),
        /** JWT claim that names the tenant. */
        jwtClaim: Type.String({ default: 'tenant_id' }),
        /** Tenants ensured at start (created when absent). */
        tenants: Type.Array(
          Type.Object(
            {
              id: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }),
              displayName: Type.String({ minLength: 1 }),
              hostNames: Type.Array(Type.String(), { default: [] }),
            },
            { additionalProperties: false },
          ),
          { default: [] },
        ),
        /** Create the demo tenant at start (default: on outside production). */
        seedDemoTenant: Type.Optional(Type.Boolean()),
        cacheRefreshSeconds: Type.Integer({ minimum: 1, default: 30 }),
        /**
         * Who may name the tenant in X-Tenant-ID on the routes that honour it (the party API, 001 §5): peers in
         * `networks` (CIDR; empty: nobody), with the secret whose SHA-256 is `secretSha256` in
         * X-Tenant-Override-Secret when set. docs/decisions.md, trusted tenant override.
         */
        trustedTenantOverride: Type.Object(
          {
            networks: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
            secretSha256: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$' })),
          },
          { default: {}, additionalProperties: false },
        ),
      },
      { default: {}, additionalProperties: false },
    ),
    auth: Type.Object(
      {
        /** Trusted issuers of bearer JWTs for the platform's APIs. */
        issuers: Type.Array(
          Type.Object(
            {
              issuer: Type.String({ minLength: 1 }),
              jwksUri: Type.String({ minLength: 1 }),
              /** Accepted audiences: a token must name one of them. */
              audience: Type.Union([
                Type.String({ minLength: 1 }),
                Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
              ]),
              algorithms: Type.Array(Type.String(), { default: ['RS256', 'ES256', 'PS256', 'EdDSA'] }),
              /**
               * The tenants this issuer's tokens may act in. Absent: the default tenant only. `any` is for the
               * deployment's own token service alone (refused at start for any other issuer).
               */
              tenants: Type.Optional(
                Type.Union([Type.Literal('any'), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })]),
              ),
              /** The roles it may grant. Absent: any role except `auth.platformAdminRole`. */
              roles: Type.Optional(Type.Union([Type.Literal('any'), Type.Array(Type.String({ minLength: 1 }))])),
              /** The scopes it may grant. Absent: any. */
              scopes: Type.Optional(Type.Union([Type.Literal('any'), Type.Array(Type.String({ minLength: 1 }))])),
            },
            { additionalProperties: false },
          ),
          { default: [] },
        ),
        rolesClaim: Type.String({ default: 'roles' }),
        tenantAdminRole: Type.String({ default: 'tenant-admin' }),
        platformAdminRole: Type.String({ default: 'platform-admin' }),
        clockToleranceSeconds: Type.Integer({ minimum: 0, default: 30 }),
        jwksCacheSeconds: Type.Integer({ minimum: 1, default: 600 }),
        /** A key set is fetched again at most this often when a token names an unknown kid (rotation). */
        jwksCooldownSeconds: Type.Integer({ minimum: 0, default: 30 }),
      },
      { default: {}, additionalProperties: false },
    ),
    keys: Type.Object(
      {
        provider: Type.Union([Type.Literal('software')], { default: 'software' }),
        /** Master key (base64, 32 bytes) that encrypts private keys at rest. */
        masterKey: Type.Optional(Type.String({ minLength: 1 })),
        /** File holding the master key; generated there in development when absent. */
        masterKeyFile: Type.Optional(Type.String({ minLength: 1 })),
      },
      { default: {}, additionalProperties: false },
    ),
    audit: Type.Object(
      {
        events: Type.Object(
          {
            signing: Type.Object(
              {
                enabled: Type.Boolean({ default: false }),
                /** A signed checkpoint is written after this many events of a tenant. */
                checkpointEveryEvents: Type.Integer({ minimum: 1, default: 100 }),
              },
              { default: {}, additionalProperties: false },
            ),
          },
          { default: {}, additionalProperties: false },
        ),
        /** Command ids whose business identifiers are replaced by a redaction marker in audit events. */
        redactCommands: Type.Array(Type.String(), { default: [] }),
        /**
         * Field-level redaction rules (001 §6 "configurable per command"; audit/redaction.ts): for the events of
         * `commands` and `eventTypes` (absent: all; `prefix.*` matches a prefix), each of `fields`
         * (`details.<path>`, `businessIds.<name>`, `*` for every key at a level) is dropped, hashed under the
         * tenant's pseudonymisation key, or masked, before the event is chained.
         */
        redaction: Type.Array(
          Type.Object(
            {
              commands: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
              eventTypes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
              fields: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
              action: Type.Union([Type.Literal('drop'), Type.Literal('hash'), Type.Literal('mask')]),
            },
            { additionalProperties: false },
          ),
          { default: [] },
        ),
      },
      { default: {}, additionalProperties: false },
    ),
    rateLimit: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        requestsPerWindow: Type.Integer({ minimum: 1, default: 600 }),
        windowSeconds: Type.Integer({ minimum: 1, default: 60 }),
        /**
         * Failed client authentications (token, introspection, revocation) one source address may make per
         * window before it is refused without a check (issue 13 §2).
         */
        failedAuthenticationsPerAddress: Type.Integer({ minimum: 1, default: 20 }),
        /**
         * Failed authentications one claimed client id may see per window, from all addresses, before it is
         * locked for the rest of the window: higher than the per-address limit, so that one address cannot lock a
         * client out.
         */
        failedAuthenticationsPerClient: Type.Integer({ minimum: 1, default: 200 }),
      },
      { default: {}, additionalProperties: false },
    ),
    logging: Type.Object(
      {
        level: Type.Union(
          [
            Type.Literal('fatal'),
            Type.Literal('error'),
            Type.Literal('warn'),
            Type.Literal('info'),
            Type.Literal('debug'),
            Type.Literal('trace'),
            Type.Literal('silent'),
          ],
          { default: 'info' },
        ),
      },
      { default: {}, additionalProperties: false },
    ),
    telemetry: Type.Object(
      {
        otlpEndpoint: Type.Optional(Type.String({ minLength: 1 })),
        otlpHeaders: Type.Optional(Type.String()),
        serviceName: Type.Optional(Type.String({ minLength: 1 })),
      },
      { default: {}, additionalProperties: false },
    ),
    jobs: Type.Object({ enabled: Type.Boolean({ default: true }) }, { default: {}, additionalProperties: false }),
    build: Type.Object(
      {
        version: Type.String({ default: '0.1.0' }),
        revision: Type.String({ default: 'unknown' }),
        builtAt: Type.String({ default: 'unknown' }),
      },
      { default: {}, additionalProperties: false },
    ),
  },
  { additionalProperties: true },
);

export type PlatformConfig = Static<typeof PlatformConfigSchema>;
