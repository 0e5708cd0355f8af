-- The tenant policy's function, inlined into every statement's plan. A LANGUAGE sql function is inlined only when its
-- body holds no subquery; 0003's did (every tenant, for a platform unit of work), so each statement under row-level
-- security called it as a function, and PostgreSQL parses and plans the body of such a call anew in each execution
-- of a statement, at each place the policy applies (a scan, a join's every side): about 0.1-0.2 ms of database CPU
-- per place, more than a primary-key read. The subquery moves to a function of its own, called only on the platform
-- branch; the policy's condition and its outcome are unchanged (CREATE OR REPLACE keeps the function the policies
-- name).
CREATE OR REPLACE FUNCTION tessera_all_tenants() RETURNS text[] LANGUAGE sql STABLE AS $fn$
  SELECT coalesce(array_agg(id), '{}') FROM tenants
$fn$;

CREATE OR REPLACE FUNCTION tessera_visible_tenants() RETURNS text[] LANGUAGE sql STABLE AS $fn$
  SELECT CASE
    WHEN current_setting('app.platform', true) = 'on' THEN tessera_all_tenants()
    ELSE ARRAY[current_setting('app.tenant_id', true)]
  END
$fn$;
