-- Outbound delivery (001 §6 webhooks, §4.5 webhook delivery status): destinations per tenant with their circuit
-- breaker (shared by every replica), and the outbox, a row per delivery written in the causing transaction.

CREATE TABLE webhook_destinations (
  tenant_id             text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id                    uuid NOT NULL,
  url                   text NOT NULL,
  -- whsec_ secret sealed by the key manager (JsonSealer), never returned after creation.
  sealed_secret         text NOT NULL,
  enabled               boolean NOT NULL DEFAULT true,
  -- Event types delivered; empty means every type.
  event_types           text[] NOT NULL DEFAULT '{}',
  created_at            timestamptz NOT NULL DEFAULT now(),
  circuit_state         text NOT NULL DEFAULT 'closed' CHECK (circuit_state IN ('closed', 'open', 'half_open')),
  consecutive_failures  integer NOT NULL DEFAULT 0,
  opened_at             timestamptz,
  -- While half-open: until when the one probe in flight holds the slot.
  probe_until           timestamptz,
  PRIMARY KEY (tenant_id, id)
);
SELECT tessera_tenant_table('webhook_destinations');

CREATE TABLE webhook_deliveries (
  tenant_id         text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  -- Sent as webhook-id: the receiver's deduplication key.
  id                uuid NOT NULL,
  destination_id    uuid NOT NULL,
  event_type        text NOT NULL,
  -- The exact bytes signed and sent (a jsonb column would reorder keys).
  body              text NOT NULL,
  status            text NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'delivering', 'delivered', 'failed', 'dead')),
  attempts          integer NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL,
  next_attempt_at   timestamptz NOT NULL,
  -- While delivering: until when the claiming replica owns the row (then another may take it over).
  lease_until       timestamptz,
  last_attempt_at   timestamptz,
  last_status_code  integer,
  -- The kind of the last failure (http_status, timeout, refused, network), never a response body.
  last_error        text,
  last_latency_ms   integer,
  delivered_at      timestamptz,
  PRIMARY KEY (tenant_id, id),
  FOREIGN KEY (tenant_id, destination_id) REFERENCES webhook_destinations (tenant_id, id) ON DELETE CASCADE
);
SELECT tessera_tenant_table('webhook_deliveries');
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
  WHERE status IN ('pending', 'failed', 'delivering');
CREATE INDEX webhook_deliveries_listing ON webhook_deliveries (tenant_id, created_at DESC, id DESC);
