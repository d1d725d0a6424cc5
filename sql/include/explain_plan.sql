-- include/explain_plan.sql: EXPLAIN helpers whose output is the same on
-- every PostgreSQL version (\i'd by the plan-node tests; pg_regress does
-- not run it alone; each test drops the three functions at its end).
-- gpu_explain(query): EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
-- as psql shows it, every line kept, without buffers (18 shows them by
-- default) and with whole row counts ("rows=3", which 18 prints as
-- "rows=3.00").
-- gpu_explain_format(format, query): EXPLAIN (COSTS OFF, FORMAT format)
-- without the "Disabled" property that 18 adds to every node.
-- gpu_plan_nodes(query): the Gpudb nodes of EXPLAIN (COSTS OFF), or
-- 'PostgreSQL''s plan' without one (whose shape varies by version).
CREATE FUNCTION gpu_explain(q text) RETURNS TABLE ("QUERY PLAN" text)
LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    "QUERY PLAN" := regexp_replace(l, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    RETURN NEXT;
  END LOOP;
END $$;
CREATE FUNCTION gpu_explain_format(fmt text, q text) RETURNS TABLE ("QUERY PLAN" text)
LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE format('EXPLAIN (COSTS OFF, FORMAT %s) ', fmt) || q LOOP
    -- JSON (a key with a comma after it, or last with one before it), YAML, XML
    l := regexp_replace(l, '\n *"Disabled": (true|false),', '', 'g');
    l := regexp_replace(l, ',\n *"Disabled": (true|false)(\n)', '\2', 'g');
    l := regexp_replace(l, '\n *Disabled: (true|false)', '', 'g');
    l := regexp_replace(l, '\n *<Disabled>(true|false)</Disabled>', '', 'g');
    "QUERY PLAN" := l;
    RETURN NEXT;
  END LOOP;
END $$;
CREATE FUNCTION gpu_plan_nodes(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  l text;
  r text := '';
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l ~ 'Custom Scan \(Gpudb' THEN
      r := r || substring(l from 'Custom Scan \((Gpudb[A-Za-z]+)\)') || ' ';
    END IF;
  END LOOP;
  RETURN CASE WHEN r = '' THEN 'PostgreSQL''s plan' ELSE rtrim(r) END;
END $$;
