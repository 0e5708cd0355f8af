-- Every committed change of what a resolve reads (a design, its bindings, its render variants) is announced on the
-- channel `designs_changed` with the tenant's id ('' when written outside a tenant's scope: every tenant), so that
-- each replica's resolve cache drops what it kept (commands/resolve-cache.ts, issue 17). A trigger rather than the
-- commands: no write path (an import, a tenant transfer, an operator's statement) can omit it. PostgreSQL delivers a
-- notification when, and only when, its transaction commits, and sends one per distinct payload per transaction.
CREATE FUNCTION designs_announce_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('designs_changed', coalesce(current_setting('app.tenant_id', true), ''));
  RETURN NULL;
END
$$;

CREATE TRIGGER design_records_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON design_records
  FOR EACH STATEMENT EXECUTE FUNCTION designs_announce_change();
CREATE TRIGGER design_bindings_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON design_bindings
  FOR EACH STATEMENT EXECUTE FUNCTION designs_announce_change();
CREATE TRIGGER design_render_variants_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON design_render_variants
  FOR EACH STATEMENT EXECUTE FUNCTION designs_announce_change();
