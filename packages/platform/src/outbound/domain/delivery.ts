/** Delivery status (001 §4.5 "webhook delivery status"). */
export const DELIVERY_STATUSES = ['pending', 'delivering', 'delivered', 'failed', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Circuit breaker state of a destination (001 §6). */
export type CircuitState = 'closed' | 'open' | 'half_open';

/** Why the last attempt failed; response bodies are never kept. */
export type FailureKind = 'http_status' | 'timeout' | 'refused' | 'network';

/**
 * What a delivery records of its last failure: a transport failure, or `rejected`: a SET push receiver refused the
 * event for good (RFC 8935 §2.3: 400 with an `err` code), so it is dead-lettered without a retry.
 */
export type DeliveryFailureKind = FailureKind | 'rejected';

/**
 * How a destination is spoken to. `standard-webhooks`: any 2xx delivers, anything else is retried.
 * `set-push`: Security Event Token push (RFC 8935): any 2xx (202 per §2.2) delivers, a 400 with an `err` code is
 * a permanent rejection (§2.3), anything else is retried.
 * `syslog-tls`: RFC 5424 messages over TLS (RFC 5425) to a `syslog-tls://` URL, for generic event forwarders; a
 * message handed to an open connection delivers (syslog has no acknowledgement), a failed connection is retried.
 */
export type DestinationProtocol = 'standard-webhooks' | 'set-push' | 'syslog-tls';

export interface Delivery {
  id: string;
  destinationId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: DeliveryFailureKind | null;
  /** The receiver's `err` code of a `rejected` delivery (RFC 8935 §2.4), when it sent one. */
  lastErrorCode?: string | null;
  deliveredAt: string | null;
}

export interface Destination {
  id: string;
  url: string;
  enabled: boolean;
  eventTypes: string[];
  createdAt: string;
  circuit: { state: CircuitState; consecutiveFailures: number; openedAt: string | null };
}

/** What a context hands to `enqueue`: the event; one delivery per subscribed, enabled destination. */
export interface OutboundEvent {
  /** Event type, e.g. `credential.issued`; destinations subscribe by type. */
  type: string;
  /** The event's data (JSON); sent as `{ type, timestamp, data }` (Standard Webhooks payload shape). */
  data: unknown;
  /** Only this destination (otherwise every matching one). */
  destinationId?: string;
}
