-- Staged audit events (issue 13 §7): a command's audit event is written in the same unit of work (or the same
-- statement) as the change it records, here, unchained; the audit store then chains it onto the tenant's hash
-- chain and deletes it from here in one statement. An event whose process died or lost the database between the
-- two is chained by the recovery job (audit.pending.recover), so a committed change never lacks its event and a
-- command never answers an error for a change that committed.
CREATE TABLE audit_pending (
  tenant_id   text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  event_id    uuid NOT NULL,
  -- The event as prepared by the audit store (camelCase fields of HashedEventFields without seq).
  event       jsonb NOT NULL,
  staged_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, event_id)
);
CREATE INDEX audit_pending_age ON audit_pending (staged_at);
SELECT tessera_tenant_table('audit_pending');
