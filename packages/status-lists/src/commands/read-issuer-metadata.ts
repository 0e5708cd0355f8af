import { defineCommand, type KeyManager } from '@tessera/platform';
import type { JWK } from 'jose';
import { listKeyAliases } from '../storage/list-rows.js';
import type { StatusListServices } from '../services.js';

export const READ_ISSUER_METADATA = 'status-list.read-issuer-metadata';

export interface IssuerMetadata {
  issuer: string;
  jwks: { keys: JWK[] };
}

/**
 * GET /.well-known/jwt-vc-issuer (SD-JWT VC §5, JWT VC Issuer Metadata): the tenant's public base URL as issuer
 * and the public keys of every key its lists are signed with (retired versions while they are still published),
 * so a verifier finds the key of a list whose issuer is this URL. Public; not audited per read.
 */
export const readIssuerMetadata = (s: StatusListServices) =>
  defineCommand<Record<string, never>, IssuerMetadata>({
    id: READ_ISSUER_METADATA,
    access: 'public',
    audit: 'self',
    async run(ctx) {
      const aliases = await s.platform.db.withTenantSession(ctx.tenantId, (sql) => listKeyAliases(sql));
      const keys = (await Promise.all(aliases.map((alias) => publishedKeys(s.platform.keys, alias)))).flat();
      return { issuer: s.baseUrlOf(ctx.tenantId), jwks: { keys } };
    },
  });

async function publishedKeys(keys: KeyManager, alias: string): Promise<JWK[]> {
  try {
    return await keys.publishedJwks(alias);
  } catch {
    // A configured alias that was removed from the key manager publishes nothing rather than failing the set.
    return [];
  }
}
