import Value from 'typebox/value';
import { ConfigError, parseIsoDurationSeconds } from '@tessera/platform';
import { ClientConfigSchema, type ClientConfig } from '../config.js';
import { parseStoredSecret, type StoredSecret } from './client-secret.js';

export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';

/** A registered client of the token service, validated from configuration. */
export interface Client {
  clientId: string;
  tenantId: string;
  secret: StoredSecret | null;
  redirectUris: readonly string[];
  grantTypes: readonly GrantType[];
  scopes: readonly string[];
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  idTokenTtlSeconds: number;
  audience: string;
  /** Roles of the client's own client_credentials tokens. */
  roles: readonly string[];
  applicationType: 'web' | 'native';
  /** Display name (`client-name`), when configured. */
  clientName: string | null;
}

/**
 * The development profile's public wallet client for the OpenID4VCI authorization code flow (issue 19): no secret,
 * loopback redirect URIs. Like the other development clients it never reaches production.
 */
export const DEV_WALLET_CLIENT_ID = 'tessera-dev-wallet';

/** Clients from configuration (000 §2.8), keyed by tenant and client id. */
export class ClientRegistry {
  private readonly clients = new Map<string, Client>();

  /**
   * `production` refuses `{plain}` secrets: under NODE_ENV=production a client secret is stored only as an argon2id
   * hash (decisions: client secrets).
   */
  constructor(
    entries: Record<string, ClientConfig>,
    defaultTenant: string | undefined,
    options: { production?: boolean } = {},
  ) {
    for (const [key, entry] of Object.entries(entries)) {
      const client = toClient(key, entry, defaultTenant, options.production === true);
      this.clients.set(`${client.tenantId}\u0000${client.clientId}`, client);
    }
  }

  find(tenantId: string, clientId: string): Client | undefined {
    return this.clients.get(`${tenantId}\u0000${clientId}`);
  }

  list(): Client[] {
    return [...this.clients.values()];
  }
}

function toClient(key: string, raw: ClientConfig, defaultTenant: string | undefined, production: boolean): Client {
  const where = `tokenService.clients.${key}`;
  // Defaults inside record values are not applied by the configuration loader: apply them per entry.
  const entry = Value.Default(ClientConfigSchema, structuredClone(raw)) as ClientConfig;
  const settings = entry['token-settings'];
  if (settings['require-pkce'] === false) {
    throw new ConfigError(
      `${where}.token-settings.require-pkce`,
      `PKCE is mandatory for every authorization code grant (000 §5)`,
    );
  }
  const tenantId = entry.tenant ?? defaultTenant;
  if (!tenantId) throw new ConfigError(`${where}.tenant`, `no tenant and no default tenant`);
  const seconds = (name: keyof typeof settings) => {
    try {
      return parseIsoDurationSeconds(String(settings[name]));
    } catch {
      throw new ConfigError(`${where}.token-settings.${name}`, `not an ISO 8601 duration`);
    }
  };
  let secret: StoredSecret | null = null;
  if (entry['client-secret'] !== undefined) {
    try {
      secret = parseStoredSecret(entry['client-secret']);
    } catch (e) {
      throw new ConfigError(`${where}.client-secret`, `${(e as Error).message}`);
    }
    if (production && secret.encoder === 'plain')
      throw new ConfigError(
        `${where}.client-secret`,
        'a {plain} secret is refused under NODE_ENV=production: store its {argon2} hash (npm run client-secret -- hash)',
      );
  }
  for (const uri of entry['redirect-uris']) {
    let parsed: URL;
    try {
      parsed = new URL(uri);
    } catch {
      throw new ConfigError(`${where}.redirect-uris`, `${JSON.stringify(uri)} is not an absolute URL`);
    }
    if (parsed.hash)
      throw new ConfigError(`${where}.redirect-uris`, `a redirect URI must not have a fragment (RFC 6749 §3.1.2)`);
  }
  if (entry['grant-types'].includes('client_credentials') && secret === null) {
    throw new ConfigError(`${where}`, `client_credentials needs a client-secret (confidential client)`);
  }
  const clientId = entry['client-id'] ?? key;
  if (production && clientId === DEV_WALLET_CLIENT_ID)
    throw new ConfigError(
      where,
      `the development wallet client "${DEV_WALLET_CLIENT_ID}" is refused under NODE_ENV=production`,
    );
  return {
    clientId,
    tenantId,
    secret,
    redirectUris: entry['redirect-uris'],
    grantTypes: entry['grant-types'],
    scopes: entry.scopes,
    accessTokenTtlSeconds: seconds('access-token-time-to-live'),
    refreshTokenTtlSeconds: seconds('refresh-token-time-to-live'),
    idTokenTtlSeconds: seconds('id-token-time-to-live'),
    audience: entry.audience ?? clientId,
    roles: entry.roles,
    applicationType: entry['application-type'],
    clientName: entry['client-name'] ?? null,
  };
}
