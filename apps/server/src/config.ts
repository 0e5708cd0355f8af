import Type, { type Static } from 'typebox';
import { PlatformConfigSchema, loadConfig, PLATFORM_ENV, type LoadConfigOptions } from '@tessera/platform';
import { TokenServiceConfigSchema } from '@tessera/token-service';
import { IdentityConfigSchema, IDENTITY_ENV } from '@tessera/identity';
import { BridgeConfigSchema } from '@tessera/bridge';
import { StatusListsConfigSchema } from '@tessera/status-lists';
import { DesignsConfigSchema } from '@tessera/designs';
import { PartiesConfigSchema } from '@tessera/parties';
import { SigningConfigSchema } from '@tessera/signing';
import { IssuanceConfigSchema } from '@tessera/issuance';
import { ISSUER_STATUS_LIST_KEY_ALIAS, Oid4vciConfigSchema } from '@tessera/oid4vci-issuer';

/**
 * The whole configuration: the platform's sections plus one section per bounded context (added by each
 * context's issue). docs/configuration.md lists every key with its default.
 */
export const ServerConfigSchema = Type.Object(
  {
    ...PlatformConfigSchema.properties,
    tokenService: TokenServiceConfigSchema,
    identity: IdentityConfigSchema,
    bridge: BridgeConfigSchema,
    statusLists: StatusListsConfigSchema,
    designs: DesignsConfigSchema,
    parties: PartiesConfigSchema,
    signing: SigningConfigSchema,
    issuance: IssuanceConfigSchema,
    oid4vci: Oid4vciConfigSchema,
    eventForwarding: Type.Object(
      {
        /**
         * The SSF transmitter as receivers reach it (the token service's internal port): each tenant's issuer is
         * `<transmitterUrl>/ssf/<tenant>`, its metadata at `/.well-known/ssf-configuration/ssf/<tenant>`.
         */
        transmitterUrl: Type.String({ default: 'http://127.0.0.1:8080' }),
        /** Pause of the forwarding loop after a round that found nothing. */
        pollIntervalMs: Type.Integer({ minimum: 10, maximum: 60_000, default: 1000 }),
        /** Audit events one round writes to the outbox per stream at most. */
        batchSize: Type.Integer({ minimum: 1, maximum: 1000, default: 200 }),
        /**
         * TLS of syslog forwarders (`syslog-tls://` URLs, RFC 5425), PEM files: the collectors' CA (default: the
         * system roots) and a client certificate and key for collectors that authenticate senders.
         */
        syslogTls: Type.Optional(
          Type.Object(
            {
              caFile: Type.Optional(Type.String({ minLength: 1 })),
              certFile: Type.Optional(Type.String({ minLength: 1 })),
              keyFile: Type.Optional(Type.String({ minLength: 1 })),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { default: {}, additionalProperties: false },
    ),
    portal: Type.Object(
      {
        /** Public base URL of the portal (000 §4.2 portal_url). */
        publicUrl: Type.String({ default: 'http://127.0.0.1:3000' }),
        /** The token service as the portal backend reaches it (internal port). */
        tokenServiceUrl: Type.String({ default: 'http://127.0.0.1:8080' }),
        /** The bridge as the portal backend reaches it. */
        bridgeUrl: Type.String({ default: 'http://127.0.0.1:8090' }),
        /** The portal's own client at the token service (client_credentials). */
        clientId: Type.String({ default: 'tessera-portal' }),
        /** Its secret; a development secret is used in the development profile when unset. */
        clientSecret: Type.Optional(Type.String({ minLength: 1 })),
      },
      { default: {}, additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type ServerConfig = Static<typeof ServerConfigSchema>;

export function loadServerConfig(options: LoadConfigOptions = {}): ServerConfig {
  const config = loadConfig(ServerConfigSchema, { bindings: [...PLATFORM_ENV, ...IDENTITY_ENV], ...options });
  // The credential issuer's status lists are signed with its credential key (every role that signs or allocates
  // them must accept that alias, so it is added here, in every process).
  if (
    config.oid4vci.statusListSignedByIssuer &&
    !config.statusLists.extraKeyAliases.includes(ISSUER_STATUS_LIST_KEY_ALIAS)
  )
    config.statusLists.extraKeyAliases.push(ISSUER_STATUS_LIST_KEY_ALIAS);
  return config;
}
