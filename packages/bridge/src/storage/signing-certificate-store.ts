import type { Sql } from '@tessera/platform';

/** The generated development request-signing certificate per key version, shared by replicas. */
export const signingCertificateStore = {
  async get(sql: Sql, keyKid: string): Promise<string | null> {
    return (
      (
        await sql.query<{ certificate_pem: string }>(
          'SELECT certificate_pem FROM bridge_signing_certificates WHERE key_kid = $1',
          [keyKid],
        )
      ).rows[0]?.certificate_pem ?? null
    );
  },

  async remove(sql: Sql, keyKid: string): Promise<void> {
    await sql.query('DELETE FROM bridge_signing_certificates WHERE key_kid = $1', [keyKid]);
  },

  /** Stores `pem` unless a replica stored one first; answers the certificate that is kept. */
  async putIfAbsent(sql: Sql, keyKid: string, pem: string): Promise<string> {
    await sql.query(
      'INSERT INTO bridge_signing_certificates (key_kid, certificate_pem) VALUES ($1, $2) ON CONFLICT (key_kid) DO NOTHING',
      [keyKid, pem],
    );
    return (await this.get(sql, keyKid))!;
  },
};
