-- 20_postgres_rules: where a Gpudb node must behave exactly as PostgreSQL's
-- own plan does, beyond the rows it returns (issue 22, items 7, 8, 12, 13):
-- which rows' errors are raised, the order of quals under row-level
-- security, scrolling a cursor backward, and the planner's enable_*
-- switches.  Each case is differential (gpudb on vs off) with the plan
-- pinned, so that the node is under test.
\i sql/include/plan_node_settings.sql

CREATE TABLE pr (id int8, g int4, v float8, d int4);
INSERT INTO pr SELECT i, i % 10, (i * 37 % 101) * 0.5, i % 5 FROM generate_series(1, 2000) i;
ANALYZE pr;
\i sql/include/differential.sql

-- ---- item 7: GpudbSort and output expressions that can raise ----
-- PostgreSQL computes 100 / (g - 3) for every row before its Sort, so the
-- rows with g = 3 raise division by zero even though the top 2 are others;
-- the node's projection would compute it only for the rows it returns
-- (before the fix: no error), so the device computes it for every selected
-- row, as a computed column (issue 25)
EXPLAIN (COSTS OFF) SELECT id, 100 / (g - 3) FROM pr ORDER BY v, id LIMIT 2;
SELECT * FROM gpu_diff('SELECT id, 100 / (g - 3) FROM pr ORDER BY v, id LIMIT 2', true);
-- with a LIMIT, PostgreSQL postpones a target column costing over 10
-- operators past its Sort (make_sort_input_target): computed for the
-- returned rows only, by both plans
SELECT * FROM gpu_diff('SELECT id, 100 / (g - 3) + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 FROM pr ORDER BY v, id LIMIT 2', true);
SELECT * FROM gpu_diff('SELECT id, 100 / (g - 3) + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 FROM pr ORDER BY v, id', true);
-- an expression that cannot raise is still projected above GpudbSort
EXPLAIN (COSTS OFF) SELECT id, g IS NULL FROM pr ORDER BY v, id LIMIT 2;
SELECT * FROM gpu_diff('SELECT id, g IS NULL FROM pr ORDER BY v, id LIMIT 2', true);

-- ---- item 8: order of quals under row-level security ----
-- A leakproof qual goes in front of a row-level security qual only when it
-- is cheap (under 10 cpu_operator_cost).  The user's OR of 12 leakproof
-- comparisons costs 12 of them, so it keeps its security level, and the
-- policy's 100 / d runs first, and raises, as in PostgreSQL's plan (before
-- the fix the node ran the user's qual first: count 0, no error).
CREATE ROLE regress_gpudb_rules;
GRANT SELECT ON pr TO regress_gpudb_rules;
ALTER TABLE pr ENABLE ROW LEVEL SECURITY;
CREATE POLICY pr_div ON pr USING (
  100 / d = 1 OR 100 / d = 2 OR 100 / d = 3 OR 100 / d = 4 OR 100 / d = 5 OR
  100 / d = 6 OR 100 / d = 7 OR 100 / d = 8 OR 100 / d = 9 OR 100 / d = 10 OR
  100 / d = 11 OR 100 / d = 12 OR 100 / d = 13 OR 100 / d = 14 OR 100 / d = 15 OR
  100 / d = 16 OR 100 / d = 17 OR 100 / d = 18 OR 100 / d = 19 OR 100 / d = 20 OR
  100 / d = 21 OR 100 / d = 22 OR 100 / d = 23 OR 100 / d = 24 OR 100 / d = 25);
SET ROLE regress_gpudb_rules;
EXPLAIN (COSTS OFF) SELECT count(*) FROM pr WHERE
  g = -1 OR g = -2 OR g = -3 OR g = -4 OR g = -5 OR g = -6 OR g = -7 OR g = -8 OR g = -9 OR g = -10 OR g = -11 OR g = -12;
SELECT * FROM gpu_diff('SELECT count(*) FROM pr WHERE
  g = -1 OR g = -2 OR g = -3 OR g = -4 OR g = -5 OR g = -6 OR g = -7 OR g = -8 OR g = -9 OR g = -10 OR g = -11 OR g = -12');
-- a cheap leakproof qual does go first: no row reaches the division
SELECT * FROM gpu_diff('SELECT count(*) FROM pr WHERE g = -1');
RESET ROLE;
ALTER TABLE pr DISABLE ROW LEVEL SECURITY;
DROP POLICY pr_div ON pr;

-- ---- item 12: a cursor without SCROLL fetches backward ----
-- PostgreSQL's Sort and SeqScan scan backward, so such a cursor is
-- scrollable; the nodes hold their whole result and scan it backward too.
CREATE FUNCTION cursor_walk(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  c refcursor;
  r record;
  out text := '';
  step text;
BEGIN
  OPEN c FOR EXECUTE q;         -- neither SCROLL nor NO SCROLL
  FOREACH step IN ARRAY ARRAY['NEXT', 'NEXT', 'PRIOR', 'PRIOR', 'PRIOR', 'NEXT',
                              'LAST', 'PRIOR', 'NEXT', 'NEXT', 'PRIOR', 'ABSOLUTE 3',
                              'RELATIVE -1', 'FIRST', 'PRIOR'] LOOP
    CASE step
      WHEN 'NEXT' THEN FETCH NEXT FROM c INTO r;
      WHEN 'PRIOR' THEN FETCH PRIOR FROM c INTO r;
      WHEN 'LAST' THEN FETCH LAST FROM c INTO r;
      WHEN 'FIRST' THEN FETCH FIRST FROM c INTO r;
      WHEN 'ABSOLUTE 3' THEN FETCH ABSOLUTE 3 FROM c INTO r;
      WHEN 'RELATIVE -1' THEN FETCH RELATIVE -1 FROM c INTO r;
    END CASE;
    out := out || step || '=' || CASE WHEN FOUND THEN r::text ELSE 'none' END || ' ';
  END LOOP;
  CLOSE c;
  RETURN out;
EXCEPTION WHEN OTHERS THEN
  RETURN out || 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE FUNCTION cursor_diff(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a text;
  b text;
BEGIN
  PERFORM set_config('gpudb.enabled', 'on', true);
  a := cursor_walk(q);
  PERFORM set_config('gpudb.enabled', 'off', true);
  b := cursor_walk(q);
  PERFORM set_config('gpudb.enabled', 'on', true);
  RETURN CASE WHEN a = b THEN 'same: ' || a ELSE 'DIFFERENT: on=' || a || ' off=' || b END;
END $$;
EXPLAIN (COSTS OFF) SELECT id, v FROM pr WHERE id <= 5 ORDER BY v, id;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM pr WHERE g < 4 GROUP BY g ORDER BY g;
EXPLAIN (COSTS OFF) SELECT id, v FROM pr WHERE id <= 5;
BEGIN;
SELECT cursor_diff('SELECT id, v FROM pr WHERE id <= 5 ORDER BY v, id');
SELECT cursor_diff('SELECT g, count(*) FROM pr WHERE g < 4 GROUP BY g ORDER BY g');
SELECT cursor_diff('SELECT id, v FROM pr WHERE id <= 5 ORDER BY id');
SELECT cursor_diff('SELECT g, count(*) FROM pr GROUP BY g ORDER BY g LIMIT 3');
COMMIT;
-- the statement form of the report: FETCH ALL, then FETCH BACKWARD 1
BEGIN;
DECLARE c CURSOR FOR SELECT id, v FROM pr WHERE id <= 3 ORDER BY v, id;
FETCH ALL IN c;
FETCH BACKWARD 1 IN c;
FETCH BACKWARD 5 IN c;
COMMIT;
BEGIN;
DECLARE c CURSOR FOR SELECT id, v FROM pr ORDER BY v, id FETCH FIRST 2 ROWS WITH TIES;
FETCH ALL IN c;
FETCH BACKWARD 1 IN c;
COMMIT;

-- ---- item 13: enable_seqscan, enable_sort, enable_hashagg ----
-- each node reads its table whole, as a sequential scan; GpudbSort and an
-- ordered GpudbAgg sort; a GpudbAgg with group keys hashes.  With the switch
-- off the node takes PostgreSQL's disable_cost, as PostgreSQL's own paths
-- do, and an index path wins as it would without gpudb.
CREATE INDEX pr_id ON pr (id);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM pr WHERE id < 1500;
RESET enable_seqscan;
EXPLAIN (COSTS OFF) SELECT count(*) FROM pr WHERE id < 1500;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT id, v FROM pr ORDER BY id;
RESET enable_sort;
EXPLAIN (COSTS OFF) SELECT id, v FROM pr ORDER BY id;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM pr GROUP BY g;
-- no group keys: a plain aggregate, which enable_hashagg does not touch
EXPLAIN (COSTS OFF) SELECT count(*) FROM pr;
RESET enable_hashagg;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM pr GROUP BY g;
SELECT * FROM gpu_diff('SELECT g, count(*) FROM pr GROUP BY g');

DROP FUNCTION cursor_diff(text);
DROP FUNCTION cursor_walk(text);
DROP TABLE pr;
DROP ROLE regress_gpudb_rules;
DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
