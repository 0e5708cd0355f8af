-- Row-level security that the planner can use with an index. The first policy, `tenant_id = <setting> OR
-- platform = on`, cannot drive an index (the OR), so every lookup by a key that does not lead with tenant_id
-- scanned its whole table. `tenant_id = ANY (tessera_visible_tenants())` is one indexable condition: the tenant of
-- the unit of work, or every tenant for a platform unit of work.
CREATE FUNCTION tessera_visible_tenants() RETURNS text[] LANGUAGE sql STABLE AS $fn$
  SELECT CASE
    WHEN current_setting('app.platform', true) = 'on' THEN (SELECT coalesce(array_agg(id), '{}') FROM tenants)
    ELSE ARRAY[current_setting('app.tenant_id', true)]
  END
$fn$;

CREATE OR REPLACE FUNCTION tessera_tenant_table(t regclass) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', t);
  EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', t);
  EXECUTE format($p$CREATE POLICY tenant_isolation ON %s
    USING (tenant_id = ANY (tessera_visible_tenants()))
    WITH CHECK (tenant_id = ANY (tessera_visible_tenants()))$p$, t);
END $fn$;

DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT schemaname, tablename FROM pg_policies WHERE policyname = 'tenant_isolation' AND schemaname = 'public'
  LOOP
    EXECUTE format($p$ALTER POLICY tenant_isolation ON %I.%I
      USING (tenant_id = ANY (tessera_visible_tenants()))
      WITH CHECK (tenant_id = ANY (tessera_visible_tenants()))$p$, r.schemaname, r.tablename);
  END LOOP;
END $$;
