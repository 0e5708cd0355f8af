import type { KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Sql } from '../db/database.js';
import { toIso, unknownAlias } from './key-errors.js';
import type { KeyInfo, SigningAlgorithm } from './key-manager.js';
import { privateKeyAad, sealSecret } from './sealing.js';
import { parseAlgorithm } from './signing-algorithms.js';

/** SQL of the signing keys (kms_keys): one row per key version, the private key sealed under the master key. */
export interface KeyRow {
  alias: string;
  version: number;
  kid: string;
  algorithm: string;
  public_jwk: JWK;
  encrypted_private: string;
  state: 'active' | 'retired';
  created_at: Date | string;
  publish_until: Date | string | null;
}

export const ROW_COLUMNS =
  'alias, version, kid, algorithm, public_jwk, encrypted_private, state, created_at, publish_until';

/**
 * Reads and locks the active row. Under READ COMMITTED a row retired by a concurrent rotation drops out of a
 * locking read, and the version that replaced it is visible only to the next statement: so read once more.
 */
export async function lockActive(sql: Sql, alias: string, forUpdate = true): Promise<KeyRow> {
  const text = `SELECT ${ROW_COLUMNS} FROM kms_keys WHERE alias = $1 AND state = 'active'${forUpdate ? ' FOR UPDATE' : ''}`;
  for (let attempt = 0; attempt < 2; attempt++) {
    const row = (await sql.query<KeyRow>(text, [alias])).rows[0];
    if (row) return row;
  }
  throw unknownAlias(alias);
}

export async function insertVersion(
  sql: Sql,
  masterKey: KeyObject,
  row: {
    alias: string;
    version: number;
    algorithm: SigningAlgorithm;
    pair: { publicKey: KeyObject; privateKey: KeyObject };
    now: Date;
  },
  ignoreConflict: boolean,
): Promise<KeyRow | undefined> {
  const { alias, version, algorithm, pair } = row;
  const jwk = pair.publicKey.export({ format: 'jwk' }) as JWK;
  // RFC 7638 thumbprint as kid: stable, derived from the key, and the same one a verifier can compute.
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  const publicJwk: JWK = { ...jwk, kid, alg: algorithm, use: 'sig' };
  const der = pair.privateKey.export({ format: 'der', type: 'pkcs8' });
  let sealed: string;
  try {
    sealed = sealSecret(masterKey, der, privateKeyAad(alias, version, kid));
  } finally {
    der.fill(0);
  }
  const rows = await sql.query<KeyRow>(
    `INSERT INTO kms_keys (alias, version, kid, algorithm, public_jwk, encrypted_private, state, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'active', $7)
     ${ignoreConflict ? 'ON CONFLICT DO NOTHING' : ''}
     RETURNING ${ROW_COLUMNS}`,
    [alias, version, kid, algorithm, JSON.stringify(publicJwk), sealed, row.now],
  );
  return rows.rows[0];
}

export function toInfo(row: KeyRow): KeyInfo {
  return {
    alias: row.alias,
    version: row.version,
    kid: row.kid,
    algorithm: parseAlgorithm(row.algorithm),
    state: row.state,
    createdAt: toIso(row.created_at),
    publishUntil: row.publish_until === null ? null : toIso(row.publish_until),
  };
}
