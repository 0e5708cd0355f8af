import { timingSafeEqual } from 'node:crypto';
import type { KeyManager, Sql } from '@tessera/platform';

/**
 * The transaction code (OpenID4VCI 1.0 §3.5, §4.1.1 `tx_code`) is a short PIN, so a plain hash of it would be
 * reversed by trying every value. It is kept as HMAC-SHA256 under the key manager's HS256 key
 * `token-service:<tenant>:tx-code`, over the code's hash and the PIN, so that a copy of the table reveals nothing
 * and one PIN gives a different value for every code.
 */
export const txCodeKeyAlias = (tenantId: string) => `token-service:${tenantId}:tx-code`;

const input = (codeHash: string, txCode: string) => Buffer.from(`${codeHash}\u0000${txCode}`, 'utf8');

/** The stored form `<key version>.<mac>`: the version keeps a stored PIN checkable across a rotation of the key. */
export async function txCodeMac(
  keys: KeyManager,
  tenantId: string,
  codeHash: string,
  txCode: string,
  sql?: Sql,
): Promise<string> {
  const alias = txCodeKeyAlias(tenantId);
  await keys.ensureSymmetric(alias, 'HS256', { sql });
  const mac = await keys.hmac(alias, input(codeHash, txCode), { sql });
  return `${mac.version}.${Buffer.from(mac.mac).toString('base64url')}`;
}

/** Whether `txCode` is the PIN stored as `stored`; the MACs are compared in constant time. */
export async function txCodeMatches(
  keys: KeyManager,
  tenantId: string,
  codeHash: string,
  txCode: string,
  stored: string,
  sql?: Sql,
): Promise<boolean> {
  const [version, expected] = stored.split('.');
  if (!version || !expected) return false;
  const mac = await keys.hmacWithVersion(txCodeKeyAlias(tenantId), Number(version), input(codeHash, txCode), { sql });
  const x = Buffer.from(mac.mac);
  const y = Buffer.from(expected, 'base64url');
  return x.length === y.length && timingSafeEqual(x, y);
}
