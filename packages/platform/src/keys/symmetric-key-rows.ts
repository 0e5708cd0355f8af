import { randomBytes, type KeyObject } from 'node:crypto';
import type { Sql } from '../db/database.js';
import { AppError } from '../errors/app-error.js';
import { toIso, unknownAlias } from './key-errors.js';
import type { SymmetricAlgorithm, SymmetricKeyInfo, SymmetricKeyState } from './key-manager.js';
import { sealSecret, symmetricKeyAad } from './sealing.js';

/** SQL of the symmetric keys (kms_symmetric_keys, db/migrations/0002_symmetric_keys.sql). */
export const SYMMETRIC_ALGORITHMS: readonly SymmetricAlgorithm[] = ['HS256', 'A256GCM'];

/** Both algorithms take 256-bit keys: HS256 a key as long as its hash (RFC 7518 §3.2), A256GCM by definition. */
const SECRET_BYTES = 32;

export interface SymmetricRow {
  alias: string;
  version: number;
  kid: string;
  algorithm: string;
  exportable: boolean;
  encrypted_secret: string;
  state: SymmetricKeyState;
  created_at: Date | string;
  activated_at: Date | string | null;
  retired_at: Date | string | null;
  /** The row was written by the reading transaction itself, which has not committed yet. */
  own: boolean;
}

export const COLUMNS = `alias, version, kid, algorithm, exportable, encrypted_secret, state, created_at, activated_at, retired_at,
  COALESCE(xmin = xid(pg_current_xact_id_if_assigned()), false) AS own`;

export async function insertSymmetricVersion(
  sql: Sql,
  masterKey: KeyObject,
  row: { alias: string; version: number; algorithm: SymmetricAlgorithm; exportable: boolean; state: SymmetricKeyState },
  now: Date,
  ignoreConflict: boolean,
): Promise<void> {
  const { alias, version, algorithm, exportable, state } = row;
  // A random kid: one derived from the secret would publish a hash of it in every envelope.
  const kid = randomBytes(16).toString('base64url');
  const secret = randomBytes(SECRET_BYTES);
  let sealed: string;
  try {
    sealed = sealSecret(masterKey, secret, symmetricKeyAad(alias, version, kid, algorithm, exportable));
  } finally {
    secret.fill(0);
  }
  await sql.query(
    `INSERT INTO kms_symmetric_keys (alias, version, kid, algorithm, exportable, encrypted_secret, state, created_at, activated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ${ignoreConflict ? 'ON CONFLICT DO NOTHING' : ''}`,
    [alias, version, kid, algorithm, exportable, sealed, state, now, state === 'active' ? now : null],
  );
}

/** Retires the active version (if any) before activating the target: one active version per alias at all times. */
export async function switchActive(sql: Sql, alias: string, version: number, now: Date): Promise<void> {
  await sql.query(
    `UPDATE kms_symmetric_keys SET state = 'retired', retired_at = $2 WHERE alias = $1 AND state = 'active'`,
    [alias, now],
  );
  await sql.query(
    `UPDATE kms_symmetric_keys SET state = 'active', activated_at = $3, retired_at = NULL WHERE alias = $1 AND version = $2`,
    [alias, version, now],
  );
}

export async function findActiveRow(sql: Sql, alias: string): Promise<SymmetricRow | undefined> {
  const rows = await sql.query<SymmetricRow>(
    `SELECT ${COLUMNS} FROM kms_symmetric_keys WHERE alias = $1 AND state = 'active'`,
    [alias],
  );
  return rows.rows[0];
}

export async function findKidRow(sql: Sql, kid: string): Promise<SymmetricRow | undefined> {
  const rows = await sql.query<SymmetricRow>(`SELECT ${COLUMNS} FROM kms_symmetric_keys WHERE kid = $1`, [kid]);
  return rows.rows[0];
}

export async function listRows(sql: Sql, alias: string): Promise<SymmetricRow[]> {
  const rows = await sql.query<SymmetricRow>(
    `SELECT ${COLUMNS} FROM kms_symmetric_keys WHERE alias = $1 ORDER BY version`,
    [alias],
  );
  return rows.rows;
}

export async function lockVersions(sql: Sql, alias: string): Promise<SymmetricRow[]> {
  const rows = await sql.query<SymmetricRow>(
    `SELECT ${COLUMNS} FROM kms_symmetric_keys WHERE alias = $1 ORDER BY version FOR UPDATE`,
    [alias],
  );
  if (rows.rows.length === 0) throw unknownAlias(alias);
  return rows.rows;
}

export async function readVersion(sql: Sql, alias: string, version: number): Promise<SymmetricRow> {
  const rows = await sql.query<SymmetricRow>(
    `SELECT ${COLUMNS} FROM kms_symmetric_keys WHERE alias = $1 AND version = $2`,
    [alias, version],
  );
  if (!rows.rows[0]) throw unknownVersion(alias, version);
  return rows.rows[0];
}

export function findVersion(rows: SymmetricRow[], alias: string, version: number): SymmetricRow {
  const row = rows.find((r) => r.version === version);
  if (!row) throw unknownVersion(alias, version);
  return row;
}

export function parseSymmetricAlgorithm(algorithm: string): SymmetricAlgorithm {
  if (!(SYMMETRIC_ALGORITHMS as readonly string[]).includes(algorithm))
    throw new Error(`stored key has an unsupported algorithm ${algorithm}`);
  return algorithm as SymmetricAlgorithm;
}

export function assertSymmetricAlgorithm(algorithm: string): asserts algorithm is SymmetricAlgorithm {
  if (!(SYMMETRIC_ALGORITHMS as readonly string[]).includes(algorithm))
    throw new AppError(
      'invalid_request',
      `Unsupported symmetric algorithm; one of ${SYMMETRIC_ALGORITHMS.join(', ')}.`,
      {
        field: 'algorithm',
      },
    );
}

export function assertVersion(version: number): void {
  if (!Number.isInteger(version) || version < 1 || version > 2_147_483_647)
    throw new AppError('invalid_request', 'A key version is a positive integer.', { field: 'version' });
}

const unknownVersion = (alias: string, version: number) =>
  new AppError('not_found', `No version ${version} exists under the alias "${alias}".`);

export function toSymmetricInfo(row: SymmetricRow): SymmetricKeyInfo {
  return {
    alias: row.alias,
    version: row.version,
    kid: row.kid,
    algorithm: parseSymmetricAlgorithm(row.algorithm),
    state: row.state,
    exportable: row.exportable,
    createdAt: toIso(row.created_at),
    activatedAt: row.activated_at === null ? null : toIso(row.activated_at),
    retiredAt: row.retired_at === null ? null : toIso(row.retired_at),
  };
}
