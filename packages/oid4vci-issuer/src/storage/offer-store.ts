import type { Sql } from '@tessera/platform';

export interface OfferRow {
  offerId: string;
  correlationId: string;
  offer: Record<string, unknown>;
  clientId: string | null;
  createdAt: Date;
  expiresAt: Date;
}

type Row = Record<string, unknown>;
const toOffer = (r: Row): OfferRow => ({
  offerId: r.offer_id as string,
  correlationId: r.correlation_id as string,
  offer: r.offer as Record<string, unknown>,
  clientId: (r.client_id as string | null) ?? null,
  createdAt: new Date(r.created_at as string),
  expiresAt: new Date(r.expires_at as string),
});

export const offerStore = {
  async insert(sql: Sql, o: OfferRow): Promise<void> {
    await sql.query(
      `INSERT INTO oid4vci_offers (offer_id, correlation_id, offer, client_id, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [o.offerId, o.correlationId, JSON.stringify(o.offer), o.clientId, o.createdAt, o.expiresAt],
    );
  },
  async byId(sql: Sql, offerId: string): Promise<OfferRow | null> {
    const r = await sql.query<Row>('SELECT * FROM oid4vci_offers WHERE offer_id = $1', [offerId]);
    return r.rows[0] ? toOffer(r.rows[0]) : null;
  },
  async byCorrelationId(sql: Sql, correlationId: string): Promise<OfferRow | null> {
    const r = await sql.query<Row>('SELECT * FROM oid4vci_offers WHERE correlation_id = $1', [correlationId]);
    return r.rows[0] ? toOffer(r.rows[0]) : null;
  },
};
