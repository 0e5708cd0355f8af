import Type, { type Static } from 'typebox';
import type { TenantExporter } from '@tessera/platform';
import { ClientConfigSchema, type TokenServiceConfig } from '../config.js';

const Client = Type.Object(
  {
    ...Type.Omit(ClientConfigSchema, ['client-secret', 'tenant', 'client-id']).properties,
    'client-id': Type.String({ minLength: 1, maxLength: 200 }),
    /** Whether the client authenticates with a secret (the secret, or its hash, is never exported). */
    confidential: Type.Boolean(),
  },
  { additionalProperties: false },
);
const Clients = Type.Array(Client, { maxItems: 1000 });
type Clients = Static<typeof Clients>;

/**
 * The token service's clients of the tenant (an integration, 001 §4.5), for the tenant export. Clients are
 * deployment configuration (`tokenService.clients`): exported so that the document names them, never imported.
 * The client secret (or its argon2 hash) is a credential and is left out: `confidential` says one exists.
 */
export function tokenServiceClientsExporter(
  config: Pick<TokenServiceConfig, 'clients'>,
  defaultTenant: string | undefined,
): TenantExporter<Clients> {
  return {
    section: 'token-service.clients',
    origin: 'configuration',
    schema: Clients,
    read({ tenantId }) {
      const clients: Clients = [];
      for (const [key, c] of Object.entries(config.clients)) {
        if ((c.tenant ?? defaultTenant) !== tenantId) continue;
        const { 'client-secret': secret, tenant: _tenant, ...rest } = structuredClone(c);
        clients.push({ ...rest, 'client-id': c['client-id'] ?? key, confidential: secret !== undefined });
      }
      return Promise.resolve(clients.sort((a, b) => a['client-id'].localeCompare(b['client-id'])));
    },
  };
}
