import type { Sql } from '../../db/database.js';
import { takeProbeSlotsSql } from './breaker-store.js';
import type {
  Delivery,
  DeliveryFailureKind,
  DeliveryStatus,
  DestinationProtocol,
  OutboundEvent,
} from '../domain/delivery.js';

export const MAX_EVENT_BYTES = 256 * 1024;

/**
 * The outbox (001 §6): `enqueue` runs inside the caller's unit of work (`db.withTenant(tenant, sql => ...)`), so
 * the deliveries commit or roll back with the change that causes them. One row per enabled destination of the
 * tenant subscribed to the event type; answers the ids (each is the `webhook-id` the receiver sees).
 */
export async function enqueue(sql: Sql, event: OutboundEvent, now: Date = new Date()): Promise<string[]> {
  const body = JSON.stringify({ type: event.type, timestamp: now.toISOString(), data: event.data ?? null });
  // Webhooks carry notifications, not documents: a receiver fetches anything larger through the API.
  if (Buffer.byteLength(body) > MAX_EVENT_BYTES) throw new RangeError('the webhook event is larger than 256 KiB');
  const { rows } = await sql.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (id, destination_id, event_type, body, created_at, next_attempt_at)
     SELECT gen_random_uuid(), d.id, $1, $2, $3, $3 FROM webhook_destinations d
      WHERE d.enabled AND d.managed_by IS NULL AND (cardinality(d.event_types) = 0 OR $1 = ANY (d.event_types))
        AND ($4::uuid IS NULL OR d.id = $4::uuid)
     RETURNING id`,
    [event.type, body, now, event.destinationId ?? null],
    // In the causing unit of work of every event: parsed and planned once per connection.
    { prepareAs: 'outbound.enqueue' },
  );
  return rows.map((r) => r.id);
}

/** One delivery written by a service that owns its destination (event-forwarding/): its id, bytes and type. */
export interface OwnedDelivery {
  id: string;
  destinationId: string;
  eventType: string;
  body: string;
  contentType: string;
}

/**
 * Platform scope, in the caller's unit of work: deliveries to destinations a service manages itself (an SSF
 * stream, an event forwarder), with ids chosen by the caller. A row whose id exists already is left as it is, so a
 * writer that repeats itself (a replica that lost a race) never makes a second delivery of the same event.
 */
export async function insertOwnedDeliveries(
  sql: Sql,
  tenantId: string,
  deliveries: readonly OwnedDelivery[],
  now: Date,
): Promise<number> {
  if (deliveries.length === 0) return 0;
  for (const d of deliveries)
    if (Buffer.byteLength(d.body) > MAX_EVENT_BYTES) throw new RangeError('an outbound event is larger than 256 KiB');
  const { rowCount } = await sql.query(
    `INSERT INTO webhook_deliveries (tenant_id, id, destination_id, event_type, body, content_type, created_at,
                                     next_attempt_at)
     SELECT $1, d.id, d.destination_id, d.event_type, d.body, d.content_type, $3, $3
       FROM jsonb_to_recordset($2::text::jsonb) AS d(id uuid, destination_id uuid, event_type text, body text,
            content_type text)
     ON CONFLICT (tenant_id, id) DO NOTHING`,
    [
      tenantId,
      JSON.stringify(
        deliveries.map((d) => ({
          id: d.id,
          destination_id: d.destinationId,
          event_type: d.eventType,
          body: d.body,
          content_type: d.contentType,
        })),
      ),
      now,
    ],
  );
  return rowCount;
}

/** A row claimed for delivery by this replica. */
export interface ClaimedDelivery {
  tenant_id: string;
  id: string;
  destination_id: string;
  url: string;
  body: string;
  attempts: number;
  created_at: Date | string;
  /** Content-Type of the body (application/json for webhooks). */
  content_type: string;
  protocol: DestinationProtocol;
}

const CLAIM = (where: string, limit: string) => `
  WITH due AS (
    SELECT w.tenant_id, w.id FROM webhook_deliveries w
      JOIN webhook_destinations d ON d.tenant_id = w.tenant_id AND d.id = w.destination_id
     WHERE d.enabled AND ${where}
     ORDER BY w.next_attempt_at LIMIT ${limit}
     FOR UPDATE OF w SKIP LOCKED)
  UPDATE webhook_deliveries w
     SET status = 'delivering', attempts = w.attempts + 1, last_attempt_at = $1,
         lease_until = $1::timestamptz + $2 * interval '1 millisecond'
    FROM due WHERE w.tenant_id = due.tenant_id AND w.id = due.id
  RETURNING w.tenant_id, w.id, w.destination_id, w.body, w.attempts, w.created_at, w.content_type,
    (SELECT url FROM webhook_destinations d WHERE d.tenant_id = w.tenant_id AND d.id = w.destination_id) AS url,
    (SELECT protocol FROM webhook_destinations d WHERE d.tenant_id = w.tenant_id AND d.id = w.destination_id)
      AS protocol`;

/**
 * Platform scope. Claims due rows of closed circuits: `FOR UPDATE SKIP LOCKED` lets replicas claim side by side
 * without waiting or taking the same row, and the claim commits `delivering` with a lease, so no other replica
 * takes the row while the POST is in flight; a row whose lease ran out (its replica died) is due again.
 */
export async function claimDue(sql: Sql, now: Date, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
  const { rows } = await sql.query<ClaimedDelivery>(
    CLAIM(
      `d.circuit_state = 'closed' AND ((w.status IN ('pending', 'failed') AND w.next_attempt_at <= $1)
        OR (w.status = 'delivering' AND w.lease_until < $1))`,
      '$3',
    ),
    [now, leaseMs, limit],
    { prepareAs: 'outbound.claim-due' },
  );
  return rows;
}

/** Platform scope. The one probe of a half-open destination: its oldest undelivered row, due or not. */
export async function claimProbe(
  sql: Sql,
  now: Date,
  leaseMs: number,
  tenantId: string,
  destinationId: string,
): Promise<ClaimedDelivery | undefined> {
  const { rows } = await sql.query<ClaimedDelivery>(
    CLAIM(
      `d.tenant_id = $3 AND d.id = $4 AND (w.status IN ('pending', 'failed')
        OR (w.status = 'delivering' AND w.lease_until < $1))`,
      '1',
    ),
    [now, leaseMs, tenantId, destinationId],
  );
  return rows[0];
}

/** What one attempt of a claimed row came to, as `recordOutcomes` writes it. */
export interface DeliveryOutcome {
  delivery: ClaimedDelivery;
  status: 'delivered' | 'failed' | 'dead';
  /** The attempt's end: `delivered_at` of a delivery. */
  at: Date;
  /** The next attempt of a `failed` row; `at` otherwise. */
  nextAttemptAt: Date;
  statusCode: number | null;
  /** Null for a delivery. */
  kind: DeliveryFailureKind | null;
  latencyMs: number;
  /** The receiver's error code (RFC 8935 `err`) of a rejection. */
  errorCode?: string | null;
}

/** A destination whose circuit closes with the outcomes written (some attempt to it was answered). */
export interface CircuitToClose {
  tenantId: string;
  id: string;
}

/**
 * Platform scope. Writes the outcomes of many attempts and closes the circuits of the destinations that answered,
 * in one statement (issue 15: one round trip for the deliveries that ended together, not a transaction each).
 * A row is written only while it is still this attempt's (`attempts` and `delivering` unchanged): a row whose
 * lease ran out and that another replica claimed again is left to that one. A circuit closed already with no
 * failure counted is not written (the row would not change; replicas do not queue on its lock for nothing).
 * Answers the rows written.
 */
export async function recordOutcomes(
  sql: Sql,
  outcomes: readonly DeliveryOutcome[],
  circuitsToClose: readonly CircuitToClose[],
): Promise<number> {
  if (outcomes.length === 0 && circuitsToClose.length === 0) return 0;
  const { rows } = await sql.query<{ written: number }>(
    `WITH written AS (
       UPDATE webhook_deliveries w SET status = o.status, next_attempt_at = o.next_attempt_at, lease_until = NULL,
          delivered_at = CASE WHEN o.status = 'delivered' THEN o.at ELSE w.delivered_at END,
          last_status_code = o.status_code, last_error = o.kind, last_latency_ms = o.latency_ms,
          last_error_code = CASE WHEN o.status = 'delivered' THEN w.last_error_code ELSE o.error_code END
         FROM jsonb_to_recordset($1::text::jsonb) AS o(tenant_id text, id uuid, attempts integer, status text,
              at timestamptz, next_attempt_at timestamptz, status_code integer, kind text, latency_ms integer,
              error_code text)
        WHERE w.tenant_id = o.tenant_id AND w.id = o.id AND w.attempts = o.attempts AND w.status = 'delivering'
       RETURNING 1),
     closed AS (
       UPDATE webhook_destinations d
          SET circuit_state = 'closed', consecutive_failures = 0, opened_at = NULL, probe_until = NULL
         FROM jsonb_to_recordset($2::text::jsonb) AS c(tenant_id text, id uuid)
        WHERE d.tenant_id = c.tenant_id AND d.id = c.id
          AND (d.circuit_state <> 'closed' OR d.consecutive_failures <> 0 OR d.opened_at IS NOT NULL
               OR d.probe_until IS NOT NULL)
       RETURNING 1)
     SELECT (SELECT count(*) FROM written)::integer AS written, (SELECT count(*) FROM closed)::integer AS closed`,
    [
      JSON.stringify(
        outcomes.map((o) => ({
          tenant_id: o.delivery.tenant_id,
          id: o.delivery.id,
          attempts: o.delivery.attempts,
          status: o.status,
          at: o.at.toISOString(),
          next_attempt_at: o.nextAttemptAt.toISOString(),
          status_code: o.statusCode,
          kind: o.kind,
          latency_ms: o.latencyMs,
          error_code: o.errorCode ?? null,
        })),
      ),
      JSON.stringify(circuitsToClose.map((c) => ({ tenant_id: c.tenantId, id: c.id }))),
    ],
    { prepareAs: 'outbound.record-outcomes' },
  );
  return rows[0]?.written ?? 0;
}

/**
 * Platform scope. The loop's housekeeping in one statement (one round trip instead of two): deliveries held past
 * `maxAgeMs` (their circuit open, or their destination disabled) are dead-lettered without a further attempt, those
 * of closed circuits die on their last failed attempt; and the cooled-down circuits of webhook destinations move to
 * half-open (breaker-store.ts `takeProbeSlots`), their probe slots answered. Both parts read one snapshot and come
 * to what they would one after the other: the expiry reads open and half-open circuits alike, the slots only move
 * an open circuit to half-open.
 */
export async function housekeep(
  sql: Sql,
  now: Date,
  maxAgeMs: number,
  cooldownMs: number,
  leaseMs: number,
): Promise<{ tenant_id: string; id: string }[]> {
  const { rows } = await sql.query<{ tenant_id: string; id: string }>(
    `WITH expired AS (
       UPDATE webhook_deliveries w SET status = 'dead', next_attempt_at = $1 FROM webhook_destinations d
        WHERE d.tenant_id = w.tenant_id AND d.id = w.destination_id
          AND (d.circuit_state <> 'closed' OR NOT d.enabled)
          AND w.status IN ('pending', 'failed') AND w.created_at <= $1::timestamptz - $2 * interval '1 millisecond'
       RETURNING 1)
     ${takeProbeSlotsSql('webhook_destinations', '$1', '$3', '$4')} RETURNING tenant_id, id`,
    [now, maxAgeMs, cooldownMs, leaseMs],
    // At most once per pollIntervalMs on every replica: parsed and planned once per connection.
    { prepareAs: 'outbound.housekeep' },
  );
  return rows;
}

interface DeliveryRow {
  id: string;
  destination_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  created_at: Date | string;
  next_attempt_at: Date | string;
  last_attempt_at: Date | string | null;
  last_status_code: number | null;
  last_error: DeliveryFailureKind | null;
  last_error_code: string | null;
  delivered_at: Date | string | null;
}

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

export const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  destinationId: r.destination_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  createdAt: iso(r.created_at)!,
  nextAttemptAt: r.status === 'pending' || r.status === 'failed' ? iso(r.next_attempt_at) : null,
  lastAttemptAt: iso(r.last_attempt_at),
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  lastErrorCode: r.last_error_code,
  deliveredAt: iso(r.delivered_at),
});

/** Tenant scope: a page of deliveries, newest first, keyset after (createdAt, id) of the previous page's last. */
export async function listDeliveries(
  sql: Sql,
  filter: {
    destinationId?: string;
    status?: DeliveryStatus;
    limit: number;
    after?: { createdAt: string; id: string };
  },
): Promise<Delivery[]> {
  const { rows } = await sql.query<DeliveryRow>(
    `SELECT id, destination_id, event_type, status, attempts, created_at, next_attempt_at, last_attempt_at,
            last_status_code, last_error, last_error_code, delivered_at
       FROM webhook_deliveries
      WHERE ($1::uuid IS NULL OR destination_id = $1::uuid) AND ($2::text IS NULL OR status = $2)
        AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
      ORDER BY created_at DESC, id DESC LIMIT $5`,
    [
      filter.destinationId ?? null,
      filter.status ?? null,
      filter.after?.createdAt ?? null,
      filter.after?.id ?? null,
      filter.limit,
    ],
  );
  return rows.map(toDelivery);
}
