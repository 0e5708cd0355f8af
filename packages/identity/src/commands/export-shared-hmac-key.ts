import { AppError, defineCommand, type Clock, type Command, type Database, type KeyManager } from '@tessera/platform';
import { identityHmacAlias } from '../domain/key-aliases.js';
import { IdentityCrypto } from '../keys/identity-crypto.js';
import { loadKeyContext } from '../keys/key-context.js';

export const EXPORT_SHARED_HMAC_KEY = 'identity.keys.export-shared-hmac-key';

export interface SharedHmacKey {
  tenantId: string;
  algorithm: 'HS256';
  version: number;
  kid: string;
  /** The key, base64url without padding (32 bytes). */
  key: string;
  /** How a client computes a lookup hash with it (000 §4.3). */
  lookupHash: string;
}

export interface ExportSharedHmacKeyDeps {
  db: Database;
  keys: KeyManager;
  clock: Clock;
}

export const LOOKUP_HASH_RULE =
  'identifierHash = base64url, without padding, of HMAC-SHA256(key, the identifier as UTF-8 bytes, unnormalised)';

/**
 * The tenant's shared lookup key, for onboarding an external client (000 §4.3: "the shared HMAC key is exchanged out
 * of band"). `current` is the key lookups use now; `next` is the new key of an open key migration, to hand out
 * before it completes: until then the old key's hashes match every record and the new key's those re-indexed so
 * far; from completion on, only the new key's. Reachable only as a command (no
 * HTTP route, not on the store): the command bus authorizes it and audits who exported which version.
 */
export async function exportSharedHmacKey(
  deps: ExportSharedHmacKeyDeps,
  tenantId: string,
  which: 'current' | 'next' = 'current',
): Promise<SharedHmacKey> {
  const context = await deps.db.withTenant(tenantId, (sql) =>
    loadKeyContext({ tenantId, sql }, new IdentityCrypto(deps.keys), deps.clock.now(), 'read'),
  );
  const versions = which === 'next' ? context.next : context.current;
  if (!versions) throw new AppError('not_found', 'No key migration is open, so there is no next lookup key.');
  const { info, key } = await deps.keys.exportSymmetricKey(identityHmacAlias(tenantId), versions.hmac);
  return {
    tenantId,
    algorithm: 'HS256',
    version: info.version,
    kid: info.kid,
    key: Buffer.from(key).toString('base64url'),
    lookupHash: LOOKUP_HASH_RULE,
  };
}

export function exportSharedHmacKeyCommand(
  deps: ExportSharedHmacKeyDeps,
): Command<{ which?: 'current' | 'next' }, SharedHmacKey> {
  return defineCommand({
    id: EXPORT_SHARED_HMAC_KEY,
    access: 'admin',
    businessIds: (input, output) => ({
      which: input.which ?? 'current',
      ...(output ? { hmacVersion: String(output.version) } : {}),
    }),
    run: (ctx, input) => exportSharedHmacKey(deps, ctx.tenantId, input.which ?? 'current'),
  });
}
