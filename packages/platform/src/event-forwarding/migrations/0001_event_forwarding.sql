-- Audit forwarding (001 §6 "replicated to an external SIEM through a shared-signals module or a generic event
-- transmitter"): streams that read the audit chain after a cursor and write outbox deliveries.

-- The outbox learns two things, additively. A destination's protocol: Standard Webhooks, or Security Event Token
-- push (RFC 8935), whose 400 with an `err` code is a refusal for good. And destinations a service manages itself
-- (a stream): the generic enqueue of application webhooks leaves those out.
ALTER TABLE webhook_destinations
  ADD COLUMN protocol text NOT NULL DEFAULT 'standard-webhooks' CHECK (protocol IN ('standard-webhooks', 'set-push')),
  ADD COLUMN managed_by text;
ALTER TABLE webhook_deliveries
  ADD COLUMN content_type text NOT NULL DEFAULT 'application/json',
  -- The registered RFC 8935 error code of a refusal (never the receiver's text).
  ADD COLUMN last_error_code text;

CREATE TABLE event_streams (
  tenant_id         text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  -- The SSF stream_id, or the forwarder's id.
  id                uuid NOT NULL,
  -- Its destination in the outbox (URL, circuit breaker, signing secret); deleting either deletes the other.
  destination_id    uuid NOT NULL,
  -- set: Security Event Tokens (SSF); json, cef, ocsf: the audit store's export formats (generic forwarder).
  format            text NOT NULL CHECK (format IN ('set', 'json', 'cef', 'ocsf')),
  -- set: the SETs' aud; the receiver that created the stream.
  audience          text[] NOT NULL DEFAULT '{}',
  -- set: SET event type URIs requested; others: audit event types forwarded (empty: every type).
  events_requested  text[] NOT NULL DEFAULT '{}',
  description       text,
  -- SSF stream status (§8.1.2): paused holds events (the cursor waits), disabled drops them (the cursor moves).
  status            text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'paused', 'disabled')),
  status_reason     text,
  -- The tenant's audit chain sequence number up to which events have been written to the outbox.
  cursor_seq        bigint NOT NULL,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id),
  UNIQUE (tenant_id, destination_id),
  FOREIGN KEY (tenant_id, destination_id) REFERENCES webhook_destinations (tenant_id, id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('event_streams');
CREATE INDEX event_streams_forwarding ON event_streams (tenant_id, cursor_seq) WHERE status <> 'paused';
