-- include/explain_analyze.sql: EXPLAIN ANALYZE helpers of the plan-node
-- tests (\i'd by them; pg_regress does not run it alone; each test drops
-- both functions at its end).
-- gpu_source(query): where the answer came from, as EXPLAIN ANALYZE's
-- "Source:" says ('cache' or 'heap'), or 'no Gpudb node'.
-- gpu_analyze(query): EXPLAIN ANALYZE's lines without timing, and without
-- the memory and batch counts of PostgreSQL's nodes, which vary; without
-- buffers (18 shows them by default) and with whole row counts ("rows=3",
-- which 18 prints as "rows=3.00"), the same on every version.
CREATE FUNCTION gpu_source(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ 'Source: ' THEN
      RETURN substring(l from 'Source: ([a-z]+)');
    END IF;
  END LOOP;
  RETURN 'no Gpudb node';
END $$;
CREATE FUNCTION gpu_analyze(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l !~ 'Memory|Batches' THEN
      RETURN NEXT regexp_replace(l, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    END IF;
  END LOOP;
END $$;
