import { AppError } from '@tessera/platform';
import type { TenantUnit } from '../identity-store.js';
import { insertKeyState, lockKeyContextShared, readKeyContext, type KeyContext } from '../storage/key-state-store.js';
import type { IdentityCrypto } from './identity-crypto.js';

/**
 * The tenant's key context, created with the tenant's keys on first use (inside the caller's transaction, so that a
 * rolled-back first use leaves nothing behind). A writer first takes the tenant's key lock shared
 * (key-state-store.ts), so that a migration never starts or ends between its read and its commit.
 */
export async function loadKeyContext(
  unit: TenantUnit,
  crypto: IdentityCrypto,
  now: Date,
  mode: 'read' | 'write',
): Promise<KeyContext> {
  if (mode === 'write') await lockKeyContextShared(unit.sql, unit.tenantId);
  const found = await readKeyContext(unit.sql);
  if (found) return found;
  await insertKeyState(unit.sql, await crypto.provision(unit), now);
  const created = await readKeyContext(unit.sql);
  if (!created) throw new AppError('server_error', 'The identity key state could not be created.');
  return created;
}
