-- Generic forwarders may send to a syslog collector over TLS (RFC 5425, `syslog-tls://` URLs): a third protocol of
-- outbox destinations. The constraint was named by PostgreSQL after its column (same on PGlite).
ALTER TABLE webhook_destinations DROP CONSTRAINT webhook_destinations_protocol_check;
ALTER TABLE webhook_destinations
  ADD CONSTRAINT webhook_destinations_protocol_check
  CHECK (protocol IN ('standard-webhooks', 'set-push', 'syslog-tls'));
