import type { JWK } from 'jose';
import type { Sql } from '@tessera/platform';

/** Deferred transactions (§9) and issued credentials (§11 notification ids); secrets stored as hashes. */
export interface TransactionRow {
  transactionHash: string;
  correlationId: string;
  credentialConfigurationId: string;
  holderKeys: JWK[];
  accessTokenJti: string;
  createdAt: Date;
  expiresAt: Date;
  completedAt: Date | null;
}

export interface IssuanceRow {
  notificationHash: string;
  correlationId: string;
  credentialConfigurationId: string;
  statusEntries: Record<string, unknown>[];
  issuedAt: Date;
  lastEvent: string | null;
}

type Row = Record<string, unknown>;

export const transactionStore = {
  async insert(sql: Sql, t: TransactionRow): Promise<void> {
    await sql.query(
      `INSERT INTO oid4vci_transactions (transaction_hash, correlation_id, credential_configuration_id, holder_keys,
         access_token_jti, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        t.transactionHash,
        t.correlationId,
        t.credentialConfigurationId,
        JSON.stringify(t.holderKeys),
        t.accessTokenJti,
        t.createdAt,
        t.expiresAt,
      ],
    );
  },
  /** The open (not completed, not expired) transaction. */
  async findOpen(sql: Sql, transactionHash: string, now: Date): Promise<TransactionRow | null> {
    const r = await sql.query<Row>(
      'SELECT * FROM oid4vci_transactions WHERE transaction_hash = $1 AND completed_at IS NULL AND expires_at > $2',
      [transactionHash, now],
    );
    const row = r.rows[0];
    if (!row) return null;
    return {
      transactionHash: row.transaction_hash as string,
      correlationId: row.correlation_id as string,
      credentialConfigurationId: row.credential_configuration_id as string,
      holderKeys: row.holder_keys as JWK[],
      accessTokenJti: row.access_token_jti as string,
      createdAt: new Date(row.created_at as string),
      expiresAt: new Date(row.expires_at as string),
      completedAt: null,
    };
  },
  /** Closes the transaction; true for the one caller that closed it (single use across replicas). */
  async claim(sql: Sql, transactionHash: string, now: Date): Promise<boolean> {
    const r = await sql.query(
      'UPDATE oid4vci_transactions SET completed_at = $2 WHERE transaction_hash = $1 AND completed_at IS NULL',
      [transactionHash, now],
    );
    return r.rowCount === 1;
  },
};

export const issuanceStore = {
  async insert(sql: Sql, i: IssuanceRow): Promise<void> {
    await sql.query(
      `INSERT INTO oid4vci_issuances (notification_hash, correlation_id, credential_configuration_id, status_entries,
         issued_at) VALUES ($1, $2, $3, $4, $5)`,
      [i.notificationHash, i.correlationId, i.credentialConfigurationId, JSON.stringify(i.statusEntries), i.issuedAt],
    );
  },
  async byNotification(sql: Sql, notificationHash: string): Promise<IssuanceRow | null> {
    const r = await sql.query<Row>('SELECT * FROM oid4vci_issuances WHERE notification_hash = $1', [notificationHash]);
    const row = r.rows[0];
    if (!row) return null;
    return {
      notificationHash: row.notification_hash as string,
      correlationId: row.correlation_id as string,
      credentialConfigurationId: row.credential_configuration_id as string,
      statusEntries: row.status_entries as Record<string, unknown>[],
      issuedAt: new Date(row.issued_at as string),
      lastEvent: (row.last_event as string | null) ?? null,
    };
  },
  async recordEvent(sql: Sql, notificationHash: string, event: string): Promise<void> {
    await sql.query('UPDATE oid4vci_issuances SET last_event = $2 WHERE notification_hash = $1', [
      notificationHash,
      event,
    ]);
  },
};
