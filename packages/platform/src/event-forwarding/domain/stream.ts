import type { CircuitState } from '../../outbound/domain/delivery.js';

/** What a stream sends: Security Event Tokens (an SSF stream) or one of the audit store's export formats. */
export const STREAM_FORMATS = ['set', 'json', 'cef', 'ocsf'] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];

/** Generic forwarder formats (001 §6: JSON, CEF, OCSF). */
export const FORWARDER_FORMATS = ['json', 'cef', 'ocsf'] as const;
export type ForwarderFormat = (typeof FORWARDER_FORMATS)[number];

/**
 * SSF stream status (SSF 1.0 §8.1.2): `enabled` sends; `paused` holds the events (they are sent once enabled
 * again); `disabled` sends nothing and holds nothing (events of that time are never sent).
 */
export const STREAM_STATUSES = ['enabled', 'paused', 'disabled'] as const;
export type StreamStatus = (typeof STREAM_STATUSES)[number];

/** One stream of a tenant: an SSF stream per receiver, or a generic forwarder. */
export interface EventStream {
  tenantId: string;
  id: string;
  destinationId: string;
  url: string;
  format: StreamFormat;
  /** The SETs' `aud` (SSF streams). */
  audience: string[];
  /** SET event type URIs (SSF), or audit event types (forwarders; empty: every type). */
  eventsRequested: string[];
  description: string | null;
  status: StreamStatus;
  statusReason: string | null;
  /** Its destination's circuit breaker (outbound/): `open` while the receiver keeps failing. */
  circuitState: CircuitState;
  /** The audit chain position up to which events have been written to the outbox. */
  cursorSeq: number;
  createdAt: string;
  updatedAt: string;
}

/** Value of `managed_by` on the outbox destinations of streams. */
export const STREAM_DESTINATION_OWNER = 'event-forwarding';
