-- 12_plan_nodes: the custom scan nodes GpudbScan, GpudbAgg and GpudbSort chosen by
-- the planner for ordinary SQL.  Every query runs with gpudb.enabled on and
-- off; EXCEPT ALL both ways must be empty (ordered queries compare their rows
-- in order), and EXPLAIN (COSTS OFF) is pinned so the node is really under
-- test.  The cost constants are zeroed so that the nodes win on small tables;
-- gpudb.explain_hardware = off hides the device and timings.
\i sql/include/plan_node_settings.sql

CREATE TABLE pn (id int8 PRIMARY KEY, g int4, h int8, i2 int2, s text,
                 v float8, f4 real, b bool, d date, ts timestamp, n numeric);
INSERT INTO pn
SELECT i, i % 10, CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919) % 1000 - 500 END,
       (i % 300)::int2, CASE WHEN i % 17 = 0 THEN NULL ELSE 'k' || (i % 6) END,
       CASE WHEN i % 13 = 0 THEN NULL WHEN i % 97 = 0 THEN 'NaN'
            WHEN i % 89 = 0 THEN '-Infinity' WHEN i % 83 = 0 THEN '-0'
            ELSE (i % 1000) * 0.25 - 100 END,
       ((i % 50) * 0.5)::real, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 = 0 END,
       date '2024-01-01' + (i % 400), timestamp '2024-01-01' + (i % 500) * interval '1 hour',
       i / 7.0
FROM generate_series(1, 6000) i;
ANALYZE pn;

-- gpu_diff(query, ordered): the Gpudb nodes in the plan with gpudb on, and how
-- many rows differ between gpudb on and off (sql/include/differential.sql)
\i sql/include/differential.sql
\i sql/include/explain_plan.sql

-- a negative control: the harness sees a difference when there is one
SELECT on_minus_off > 0 AS harness_detects_difference
FROM gpu_diff('SELECT id FROM pn WHERE id < 10 AND (current_setting(''gpudb.enabled'') = ''on'' OR id > 1)');

-- ---- GpudbScan: device quals, CPU quals above them, projection ----
EXPLAIN (COSTS OFF) SELECT id, v FROM pn WHERE v > 100 AND g = 3;
EXPLAIN (COSTS OFF) SELECT id, s FROM pn WHERE g < 2 AND reverse(s) LIKE '%1k';
EXPLAIN (COSTS OFF, VERBOSE) SELECT id, v * 2 AS v2 FROM pn WHERE h BETWEEN -10 AND 10;
SELECT * FROM gpu_diff('SELECT id, v FROM pn WHERE v > 100 AND g = 3');
SELECT * FROM gpu_diff('SELECT id, s FROM pn WHERE g < 2 AND reverse(s) LIKE ''%1k''');
-- an equality from an equivalence class with a text expression the device
-- cannot run: the device takes the equality, the CPU the expression
EXPLAIN (COSTS OFF) SELECT id, s FROM pn WHERE g = 1 AND reverse(s) LIKE '%1k';
SELECT * FROM gpu_diff('SELECT id, v * 2 AS v2, s FROM pn WHERE h BETWEEN -10 AND 10');
SELECT * FROM gpu_diff('SELECT id, g, h, i2, s, v, f4, b, d, ts FROM pn WHERE b IS NOT TRUE AND d >= date ''2024-06-01''');
-- a numeric column in the output: PostgreSQL's plan
SELECT * FROM gpu_diff('SELECT * FROM pn WHERE b IS NOT TRUE AND d >= date ''2024-06-01''');
SELECT * FROM gpu_diff('SELECT id, ts FROM pn WHERE s = ''k2'' OR s IS NULL');
SELECT * FROM gpu_diff('SELECT id FROM pn WHERE v = ''NaN'' OR v = 0');
SELECT * FROM gpu_diff('SELECT id, f4 FROM pn WHERE f4 IN (1.5, 2, 24.5) AND NOT b');
SELECT * FROM gpu_diff('SELECT id FROM pn WHERE i2 % 7 = 3 AND h IS DISTINCT FROM 5');
SELECT * FROM gpu_diff('SELECT id, n FROM pn WHERE g = 1 AND n > 10');
-- errors: the same rows raise the same error
SELECT * FROM gpu_diff('SELECT id FROM pn WHERE 100 / (g - 4) > 1');
SELECT * FROM gpu_diff('SELECT id FROM pn WHERE g > 8 AND i2 * 1000 > 0');
SELECT * FROM gpu_diff('SELECT id FROM pn WHERE g * 1000000000 > 0');
-- a device qual that can raise, with a CPU qual after it, would see later
-- rows before the CPU qual sees earlier ones: PostgreSQL's plan keeps the
-- row-by-row error order; quals that cannot raise still go to the device
EXPLAIN (COSTS OFF) SELECT id FROM pn WHERE i2 * 200::int2 > 0 AND ascii(s) / (g - 1) > 0;
SELECT * FROM gpu_diff('SELECT id FROM pn WHERE i2 * 200::int2 > 0 AND ascii(s) / (g - 1) > 0');
EXPLAIN (COSTS OFF) SELECT id FROM pn WHERE g > 8 AND ascii(s) / (g - 9) > 0;
SELECT * FROM gpu_diff('SELECT id FROM pn WHERE g > 8 AND ascii(s) / (g - 9) > 0');
SELECT * FROM gpu_diff('SELECT id FROM pn WHERE i2 * 200::int2 > 0 AND g < 100');
-- a join: GpudbScan as a child of an ordinary join
SELECT * FROM gpu_diff('SELECT a.id, b.id FROM pn a JOIN pn b ON a.id = b.h WHERE a.g = 2 AND b.g = 3');

-- ---- GpudbAgg: group keys of every type, aggregates, HAVING ----
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(v), avg(v), min(h), max(d) FROM pn WHERE id > 100 GROUP BY g;
EXPLAIN (COSTS OFF) SELECT s, count(*) FROM pn GROUP BY s HAVING count(*) > 900;
EXPLAIN (COSTS OFF) SELECT count(*), sum(h) FROM pn WHERE v < 0;
SELECT * FROM gpu_diff('SELECT g, count(*), sum(v), avg(v), min(h), max(d) FROM pn WHERE id > 100 GROUP BY g');
SELECT * FROM gpu_diff('SELECT s, count(*), count(s), sum(i2), avg(h), min(ts), max(v) FROM pn GROUP BY s');
SELECT * FROM gpu_diff('SELECT b, d, count(*), sum(f4), avg(f4) FROM pn GROUP BY b, d');
SELECT * FROM gpu_diff('SELECT h, g, count(v), min(v), max(v) FROM pn WHERE h IS NOT NULL GROUP BY h, g');
SELECT * FROM gpu_diff('SELECT s, count(*) FROM pn GROUP BY s HAVING count(*) > 900');
SELECT * FROM gpu_diff('SELECT g, sum(h) / count(*) AS m, max(v) - min(v) AS r FROM pn GROUP BY g HAVING min(v) < 0 AND g > 2');
SELECT * FROM gpu_diff('SELECT count(*), sum(h), avg(i2), max(i2) FROM pn WHERE v < 0');
SELECT * FROM gpu_diff('SELECT count(*), sum(v), max(ts) FROM pn WHERE h > 10000');
SELECT * FROM gpu_diff('SELECT g, count(n) FROM pn GROUP BY g');
SELECT * FROM gpu_diff('SELECT g FROM pn GROUP BY g');
SELECT * FROM gpu_diff('SELECT sum(h * 1000000000000000) FROM pn');
SELECT * FROM gpu_diff('SELECT g, sum(v) FROM pn WHERE 1 / (g - 9) > 0 GROUP BY g');
-- the variance family: smallint and integer exactly (numeric results),
-- real and double precision as float8 (rounded here: the device's
-- reduction order changes the last bits), NaN and -Infinity inputs, single
-- rows (NULL sample statistics), NULL inputs, overflow
EXPLAIN (COSTS OFF) SELECT g, variance(i2), stddev(g), var_pop(v), stddev_pop(f4) FROM pn GROUP BY g;
SELECT * FROM gpu_diff('SELECT g, variance(i2), var_samp(g), var_pop(i2), stddev(i2), stddev_samp(g), stddev_pop(i2) FROM pn GROUP BY g');
SELECT * FROM gpu_diff('SELECT s, b, stddev_samp(i2), var_pop(g), count(*) FROM pn WHERE id % 5 = 1 GROUP BY s, b');
-- a sum or avg of the same column serves as the variance's sum
SELECT * FROM gpu_diff('SELECT g, sum(i2), variance(i2), avg(g), stddev_pop(g), var_samp(i2) FROM pn GROUP BY g');
SELECT * FROM gpu_diff('SELECT h, var_samp(i2), stddev_pop(i2), round(var_pop(f4)::numeric, 6), round(stddev_samp(v)::numeric, 6) FROM pn WHERE i2 < 20 GROUP BY h');
SELECT * FROM gpu_diff('SELECT g, round(variance(f4)::numeric, 6), round(stddev_pop(v)::numeric, 6), round(var_pop(v)::numeric, 4), round(stddev(f4)::numeric, 8) FROM pn GROUP BY g');
SELECT * FROM gpu_diff('SELECT round(var_samp(v)::numeric, 4), round(stddev(f4)::numeric, 8), stddev(i2) FROM pn WHERE v BETWEEN -10 AND 10');
SELECT * FROM gpu_diff('SELECT d, round(stddev(v)::numeric, 6) FROM pn WHERE g = 3 GROUP BY d HAVING var_pop(i2) > 100');
CREATE TABLE pn_big AS SELECT i AS id, i % 2 AS g, (i * 1e200)::float8 AS x FROM generate_series(1, 3) i;
ANALYZE pn_big;
SELECT * FROM gpu_diff('SELECT var_pop(x) FROM pn_big');
SELECT * FROM gpu_diff('SELECT g, stddev_samp(x) FROM pn_big GROUP BY g');

-- ---- GpudbAgg ordered on the device: ORDER BY group keys and aggregates
-- (count, min, max, sum of smallint/integer/double precision), the LIMIT
-- as a cut of the groups; only the first groups come back ----
EXPLAIN (COSTS OFF) SELECT h, sum(v) FROM pn GROUP BY h ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10;
EXPLAIN (COSTS OFF) SELECT g, b, count(*) FROM pn WHERE h > 0 GROUP BY g, b ORDER BY count(*) DESC, g, b NULLS FIRST LIMIT 5;
EXPLAIN (COSTS OFF) SELECT g, min(d), max(ts) FROM pn GROUP BY g ORDER BY g DESC;
EXPLAIN (COSTS OFF) SELECT h FROM pn GROUP BY h ORDER BY count(*) DESC, h OFFSET 2 LIMIT 3;
SELECT * FROM gpu_diff('SELECT h, sum(v) FROM pn GROUP BY h ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10', true);
SELECT * FROM gpu_diff('SELECT g, b, count(*) FROM pn WHERE h > 0 GROUP BY g, b ORDER BY count(*) DESC, g, b NULLS FIRST LIMIT 5', true);
SELECT * FROM gpu_diff('SELECT g, min(d), max(ts) FROM pn GROUP BY g ORDER BY g DESC', true);
SELECT * FROM gpu_diff('SELECT h FROM pn GROUP BY h ORDER BY count(*) DESC, h OFFSET 2 LIMIT 3', true);
-- NULL groups and NULL aggregate values (groups 3..9 see only NULL v), both
-- NULL orders
SELECT * FROM gpu_diff('SELECT g, sum(v), count(v) FROM pn WHERE v IS NULL OR g < 3 GROUP BY g ORDER BY 2 NULLS FIRST, 1 LIMIT 4', true);
SELECT * FROM gpu_diff('SELECT g, sum(v), count(v) FROM pn WHERE v IS NULL OR g < 3 GROUP BY g ORDER BY 2 DESC NULLS LAST, 1 LIMIT 4', true);
SELECT * FROM gpu_diff('SELECT g, max(v) FROM pn WHERE v IS NULL OR g < 3 GROUP BY g ORDER BY 2 DESC, 1 DESC LIMIT 8', true);
SELECT * FROM gpu_diff('SELECT h, count(*) FROM pn GROUP BY h ORDER BY h NULLS FIRST LIMIT 3', true);
SELECT * FROM gpu_diff('SELECT h, count(*) FROM pn GROUP BY h ORDER BY h DESC LIMIT 3', true);
SELECT * FROM gpu_diff('SELECT h, count(*) FROM pn GROUP BY h ORDER BY h DESC NULLS LAST LIMIT 3', true);
-- every orderable aggregate and key type; NaN, -Infinity and -0 in min/max
SELECT * FROM gpu_diff('SELECT i2, count(*), min(v), max(d) FROM pn GROUP BY i2 ORDER BY count(*) DESC, min(v), i2 LIMIT 7', true);
SELECT * FROM gpu_diff('SELECT g, b, max(ts), min(f4), sum(i2) FROM pn GROUP BY g, b ORDER BY max(ts) DESC, min(f4) NULLS FIRST, sum(i2), g, b LIMIT 8', true);
SELECT * FROM gpu_diff('SELECT d, sum(g), max(h) FROM pn GROUP BY d ORDER BY sum(g) DESC, max(h) NULLS FIRST, d OFFSET 3 LIMIT 5', true);
SELECT * FROM gpu_diff('SELECT i2, max(v), min(v) FROM pn GROUP BY i2 ORDER BY 2 DESC, 3, 1 LIMIT 6', true);
SELECT * FROM gpu_diff('SELECT i2, max(v), min(v) FROM pn GROUP BY i2 ORDER BY 3, 2, 1 DESC LIMIT 6', true);
SELECT * FROM gpu_diff('SELECT f4, v, count(*) FROM pn WHERE g = 3 GROUP BY f4, v ORDER BY v DESC, f4 LIMIT 12', true);
SELECT * FROM gpu_diff('SELECT count(*), max(h) FROM pn ORDER BY 1', true);
-- no LIMIT: ordered on the device, every group returned
SELECT * FROM gpu_diff('SELECT g, count(*), sum(h) FROM pn GROUP BY g ORDER BY 3 DESC', true);
-- HAVING filters after the cut would: ordered on the device, not cut
EXPLAIN (COSTS OFF) SELECT h, count(*) FROM pn GROUP BY h HAVING count(*) > 5 ORDER BY 2 DESC, 1 LIMIT 5;
SELECT * FROM gpu_diff('SELECT h, count(*) FROM pn GROUP BY h HAVING count(*) > 5 ORDER BY 2 DESC, 1 LIMIT 5', true);
-- WITH TIES needs the groups past the limit: not cut
EXPLAIN (COSTS OFF) SELECT h, count(*) FROM pn GROUP BY h ORDER BY 2 DESC FETCH FIRST 3 ROWS WITH TIES;
SELECT * FROM gpu_diff('SELECT h, count(*) FROM pn GROUP BY h ORDER BY 2 DESC FETCH FIRST 3 ROWS WITH TIES');
-- several batches (pn: 6 of 1024 rows; pn_2k and pn_1k: exactly 2 and 1):
-- the batches and the combines run unordered, the last combine cuts
CREATE TABLE pn_2k AS SELECT * FROM pn WHERE id <= 2048;
CREATE TABLE pn_1k AS SELECT * FROM pn WHERE id <= 1024;
ANALYZE pn_2k;
ANALYZE pn_1k;
SET gpudb.batch_rows = 1024;
SELECT * FROM gpu_explain($$SELECT h, sum(v) FROM pn GROUP BY h ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10$$);
SELECT * FROM gpu_diff('SELECT h, sum(v) FROM pn GROUP BY h ORDER BY 2 DESC NULLS LAST, 1 LIMIT 10', true);
SELECT * FROM gpu_diff('SELECT h, count(*), min(i2) FROM pn_2k GROUP BY h ORDER BY 2 DESC, 3, 1 LIMIT 4', true);
SELECT * FROM gpu_diff('SELECT h, count(*), min(i2) FROM pn_1k GROUP BY h ORDER BY 2 DESC, 3, 1 LIMIT 4', true);
RESET gpudb.batch_rows;
-- errors: a float sum (or avg) that overflows in a group the LIMIT does not
-- return raises as PostgreSQL's aggregation does; an integer product in
-- the target list may raise in any group, so the ordinary sort stays
CREATE TABLE pn_ovf (g int4, x float8);
INSERT INTO pn_ovf VALUES (1, 1e308), (1, 1e308), (2, 1), (2, 2), (2, 3), (3, 5), (4, 'Infinity'), (4, 1e308);
ANALYZE pn_ovf;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(x) FROM pn_ovf GROUP BY g ORDER BY 2 DESC LIMIT 1;
SELECT * FROM gpu_diff('SELECT g, count(*), sum(x) FROM pn_ovf GROUP BY g ORDER BY 2 DESC LIMIT 1', true);
SELECT * FROM gpu_diff('SELECT g, count(*), avg(x) FROM pn_ovf GROUP BY g ORDER BY 2 DESC, g LIMIT 1', true);
SELECT * FROM gpu_diff('SELECT g, count(*), sum(x) FROM pn_ovf WHERE g > 1 GROUP BY g ORDER BY 3 DESC LIMIT 2', true);
EXPLAIN (COSTS OFF) SELECT g, max(h) * 100000000000000000 FROM pn GROUP BY g ORDER BY max(h) LIMIT 1;
SELECT * FROM gpu_diff('SELECT g, max(h) * 100000000000000000 FROM pn GROUP BY g ORDER BY max(h) LIMIT 1', true);
-- what keeps the ordinary sort above the GpudbAgg
SET gpudb.debug_unsupported = on;
EXPLAIN (COSTS OFF) SELECT g, avg(i2) FROM pn GROUP BY g ORDER BY 2 LIMIT 3;
EXPLAIN (COSTS OFF) SELECT s, count(*) FROM pn GROUP BY s ORDER BY s LIMIT 3;
EXPLAIN (COSTS OFF) SELECT g, sum(h) / count(*) FROM pn GROUP BY g ORDER BY count(*) LIMIT 3;
EXPLAIN (COSTS OFF) SELECT g, sum(f4) FROM pn GROUP BY g ORDER BY g LIMIT 3;
EXPLAIN (COSTS OFF) SELECT g, sum(h) FROM pn GROUP BY g ORDER BY sum(h) LIMIT 3;
RESET gpudb.debug_unsupported;
SELECT * FROM gpu_diff('SELECT g, avg(i2) FROM pn GROUP BY g ORDER BY 2, 1 LIMIT 3', true);
SELECT * FROM gpu_diff('SELECT g, sum(h) FROM pn GROUP BY g ORDER BY sum(h) DESC LIMIT 3', true);

-- ---- GpudbSort: ORDER BY keys, directions, NULL order, LIMIT as top-k ----
EXPLAIN (COSTS OFF) SELECT id, v FROM pn ORDER BY v DESC, id LIMIT 10;
EXPLAIN (COSTS OFF) SELECT id, h FROM pn WHERE g = 1 ORDER BY h NULLS FIRST, id OFFSET 5 LIMIT 5;
EXPLAIN (COSTS OFF) SELECT id, d FROM pn WHERE g = 2 ORDER BY d DESC NULLS LAST, id;
SELECT * FROM gpu_diff('SELECT id, v FROM pn ORDER BY v DESC, id LIMIT 10', true);
SELECT * FROM gpu_diff('SELECT id, v FROM pn ORDER BY v, id LIMIT 25', true);
SELECT * FROM gpu_diff('SELECT id, v FROM pn ORDER BY v NULLS FIRST, id DESC LIMIT 25', true);
SELECT * FROM gpu_diff('SELECT id, h FROM pn WHERE g = 1 ORDER BY h NULLS FIRST, id OFFSET 5 LIMIT 5', true);
SELECT * FROM gpu_diff('SELECT id, d, s FROM pn WHERE g = 2 ORDER BY d DESC NULLS LAST, id', true);
SELECT * FROM gpu_diff('SELECT id, b, ts, f4 FROM pn ORDER BY b DESC, ts, f4 DESC, id LIMIT 40', true);
SELECT * FROM gpu_diff('SELECT id, i2 FROM pn WHERE v IS NULL ORDER BY i2 DESC NULLS FIRST, id', true);
SELECT * FROM gpu_diff('SELECT id * 2, v FROM pn WHERE h > 400 ORDER BY v, h, id LIMIT 3', true);
SELECT * FROM gpu_diff('SELECT id FROM pn ORDER BY id DESC LIMIT 0', true);
-- WITH TIES needs the rows past the limit: no top-k
EXPLAIN (COSTS OFF) SELECT id, g FROM pn ORDER BY g FETCH FIRST 2 ROWS WITH TIES;
SELECT * FROM gpu_diff('SELECT id, g FROM pn ORDER BY g FETCH FIRST 2 ROWS WITH TIES');

-- ---- what stays on the CPU: PostgreSQL's own plan ----
SET gpudb.debug_unsupported = on;
EXPLAIN (COSTS OFF) SELECT g, stddev(h) FROM pn GROUP BY g;
EXPLAIN (COSTS OFF) SELECT g % 3, count(*) FROM pn GROUP BY g % 3;
-- (a text key in another collation than its column's: s's, the database's
-- default, is C in some setups; text_rank.c orders C columns)
EXPLAIN (COSTS OFF) SELECT id, s FROM pn ORDER BY s COLLATE "C", id LIMIT 3;
SELECT gpu_plan_nodes($$SELECT sum(DISTINCT g) FROM pn$$);
RESET gpudb.debug_unsupported;
SELECT * FROM gpu_diff('SELECT g, stddev(h), count(DISTINCT s) FROM pn GROUP BY g');
SELECT * FROM gpu_diff('SELECT id, s FROM pn ORDER BY s COLLATE "C", id LIMIT 30', true);

-- ---- the EXPLAIN property API: every format carries the properties ----
SELECT * FROM gpu_explain_format('JSON', $$SELECT g, count(*) FROM pn WHERE v > 0 GROUP BY g$$);
SELECT * FROM gpu_explain_format('YAML', $$SELECT id FROM pn ORDER BY v DESC, id LIMIT 3$$);
SELECT * FROM gpu_explain_format('XML', $$SELECT id FROM pn WHERE g = 7$$);
SELECT * FROM gpu_explain($$SELECT g, count(*), avg(v) FROM pn WHERE h > 0 GROUP BY g$$);
SELECT * FROM gpu_explain($$SELECT id, v FROM pn WHERE g = 5 ORDER BY v DESC NULLS LAST, id LIMIT 4$$);
SELECT * FROM gpu_explain($$SELECT h, count(*), max(v) FROM pn WHERE g > 2 GROUP BY h ORDER BY 2 DESC, 3 NULLS FIRST, 1 LIMIT 3$$);
SELECT * FROM gpu_explain_format('JSON', $$SELECT g, sum(i2) FROM pn GROUP BY g ORDER BY 2 DESC LIMIT 2$$);
-- with gpudb.explain_hardware = on: the device, bytes, per-phase device
-- times and fallbacks (their names; the CPU path moves no bytes and has no
-- device time)
SET gpudb.explain_hardware = on;
CREATE FUNCTION pn_node_props(q text) RETURNS TABLE (key text, value text)
LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, FORMAT JSON) ' || q INTO j;
  RETURN QUERY
    WITH RECURSIVE n(p) AS (
      SELECT j->0->'Plan'
      UNION ALL
      SELECT c FROM n, json_array_elements(n.p->'Plans') c)
    SELECT e.key, e.value #>> '{}'
    FROM n, json_each(n.p) e
    WHERE n.p->>'Node Type' = 'Custom Scan' AND e.key <> 'Disabled'
    ORDER BY 1;
END $$;
SELECT key, CASE WHEN key LIKE '%Time' OR key LIKE 'Actual%' OR key LIKE 'Bytes%'
                      OR key = 'Device' THEN '(varies)'
                 ELSE value END AS value
  FROM pn_node_props('SELECT g, count(*) FROM pn WHERE v > 0 GROUP BY g');
-- the phases add up to the device time (3 decimals each), none is negative;
-- on the CPU path all are zero
WITH a AS MATERIALIZED (SELECT * FROM pn_node_props('SELECT id FROM pn WHERE g = 7')),
     p AS (SELECT key, value::float8 AS ms FROM a
           WHERE key LIKE '% Time' AND key NOT IN ('Run Time', 'Device Time')
              AND key NOT LIKE 'Actual%'),
     d AS (SELECT value::float8 AS ms FROM a WHERE key = 'Device Time')
SELECT count(*) AS phases, bool_and(p.ms >= 0) AS none_negative,
       abs(sum(p.ms) - (SELECT ms FROM d)) <= 0.01 + 0.01 * (SELECT ms FROM d) AS add_up,
       (SELECT ms FROM d) = 0 OR current_setting('gpudb.device') = 'gpu' AS zero_on_cpu
  FROM p;
SET gpudb.explain_hardware = off;
-- from PostgreSQL 18, EXPLAIN (GPUDB_HARDWARE [boolean]) says it for one
-- statement, over the setting; before 18 there is no such option and the
-- check is skipped (three t, as where it passes)
CREATE FUNCTION pn_plan_text(hardware bool, opts text, q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  l text;
  r text := '';
BEGIN
  PERFORM set_config('gpudb.explain_hardware', hardware::text, true);
  FOR l IN EXECUTE format('EXPLAIN (COSTS OFF%s) %s', opts, q) LOOP
    r := r || l || E'\n';
  END LOOP;
  RETURN r;
END $$;
SELECT NOT v18 OR pn_plan_text(false, ', GPUDB_HARDWARE', q) = pn_plan_text(true, '', q) AS option_on,
       NOT v18 OR pn_plan_text(true, ', GPUDB_HARDWARE OFF', q) = pn_plan_text(false, '', q) AS option_off,
       NOT v18 OR pn_plan_text(true, '', q) <> pn_plan_text(false, '', q) AS differs
  FROM (VALUES (current_setting('server_version_num')::int >= 180000,
                'SELECT g, count(*) FROM pn WHERE v > 0 GROUP BY g')) v(v18, q);
SHOW gpudb.explain_hardware;
DROP FUNCTION pn_plan_text(bool, text, text);

-- ---- the GUCs that switch the nodes off ----
SET gpudb.enable_gpuagg = off;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM pn GROUP BY g;
RESET gpudb.enable_gpuagg;
SET gpudb.enable_gpusort = off;
EXPLAIN (COSTS OFF) SELECT id FROM pn ORDER BY v LIMIT 3;
EXPLAIN (COSTS OFF) SELECT h, sum(v) FROM pn GROUP BY h ORDER BY 2 DESC LIMIT 3;
RESET gpudb.enable_gpusort;
SET gpudb.enable_gpuscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM pn WHERE g = 7;
RESET gpudb.enable_gpuscan;
SET gpudb.enabled = off;
EXPLAIN (COSTS OFF) SELECT id FROM pn WHERE g = 7;
RESET gpudb.enabled;
-- with the default costs, a small table keeps PostgreSQL's plan
RESET gpudb.gpu_setup_cost;
RESET gpudb.gpu_tuple_cost;
RESET gpudb.gpu_transfer_cost;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM pn GROUP BY g;
EXPLAIN (COSTS OFF) SELECT id FROM pn WHERE g = 7;
SET gpudb.gpu_setup_cost = 0;
SET gpudb.gpu_tuple_cost = 0;
SET gpudb.gpu_transfer_cost = 0;

-- ---- row-level security and security barrier views ----
CREATE ROLE regress_gpudb_rls;
ALTER TABLE pn ENABLE ROW LEVEL SECURITY;
CREATE POLICY pn_low ON pn FOR SELECT TO regress_gpudb_rls USING (g < 4);
GRANT SELECT ON pn TO regress_gpudb_rls;
GRANT EXECUTE ON FUNCTION gpu_diff(text, bool), gpu_diff_rows(text, bool) TO regress_gpudb_rls;
SET ROLE regress_gpudb_rls;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM pn WHERE h > 0 GROUP BY g;
SELECT * FROM gpu_diff('SELECT g, count(*), sum(h) FROM pn WHERE h > 0 GROUP BY g');
SELECT * FROM gpu_diff('SELECT id, v FROM pn ORDER BY v DESC NULLS LAST, id LIMIT 7', true);
RESET ROLE;
ALTER TABLE pn DISABLE ROW LEVEL SECURITY;
CREATE FUNCTION pn_leak(text) RETURNS bool LANGUAGE plpgsql COST 0.0000001
  AS $$ BEGIN RETURN $1 IS NOT NULL; END $$;
CREATE VIEW pn_sb WITH (security_barrier) AS SELECT id, s, g FROM pn WHERE g = 3;
EXPLAIN (COSTS OFF) SELECT id FROM pn_sb WHERE pn_leak(s);
SELECT * FROM gpu_diff('SELECT id FROM pn_sb WHERE pn_leak(s)');

-- ---- prepared statements, cursors ----
PREPARE pn_q AS SELECT g, count(*) FROM pn WHERE v > 10 GROUP BY g ORDER BY g;
EXPLAIN (COSTS OFF) EXECUTE pn_q;
EXECUTE pn_q;
EXECUTE pn_q;
PREPARE pn_p(int) AS SELECT g, count(*) FROM pn WHERE g < $1 GROUP BY g ORDER BY g;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE pn_p(3);
EXECUTE pn_p(3);
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE pn_p(3);
EXECUTE pn_p(3);
RESET plan_cache_mode;
-- a cursor's plan favours fast start; the nodes produce everything first
SET cursor_tuple_fraction = 1.0;
BEGIN;
EXPLAIN (COSTS OFF) DECLARE pn_c0 CURSOR FOR SELECT id, v FROM pn WHERE g = 4 ORDER BY v DESC NULLS LAST, id LIMIT 6;
DECLARE pn_c CURSOR FOR SELECT id, v FROM pn WHERE g = 4 ORDER BY v DESC NULLS LAST, id LIMIT 6;
FETCH 2 FROM pn_c;
FETCH 10 FROM pn_c;
CLOSE pn_c;
DECLARE pn_s SCROLL CURSOR FOR SELECT id FROM pn WHERE g = 4 AND i2 < 60;
EXPLAIN (COSTS OFF) DECLARE pn_s2 SCROLL CURSOR FOR SELECT id FROM pn WHERE g = 4 AND i2 < 60;
FETCH 3 FROM pn_s;
FETCH BACKWARD 2 FROM pn_s;
FETCH ABSOLUTE -1 FROM pn_s;
COMMIT;
RESET cursor_tuple_fraction;

-- a rescanned node (inner side of a nested loop) replays its rows
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT * FROM gpu_diff('SELECT a.g, c.n FROM (SELECT g FROM pn WHERE id < 4) a, (SELECT g, count(*) AS n FROM pn WHERE v > 0 GROUP BY g) c WHERE a.g = c.g');
RESET enable_hashjoin;
RESET enable_mergejoin;

-- gpu_select and gpu_sort: the same operators as functions
SELECT * FROM gpu_sort('pn', 'id, v', 'v DESC NULLS LAST, id', 5, 'g = 1') AS t(id int8, v float8);
SELECT count(*) FROM gpu_select('pn', 'id, s', 's = ''k3'' AND h > 0') AS t(id int8, s text);
SELECT count(*) FROM pn WHERE s = 'k3' AND h > 0;

-- a GpudbScan is not parallel-aware: under an aggregate that PostgreSQL can
-- run in parallel workers it is not offered (it would leave the aggregate to
-- one process); without parallel workers it is
CREATE TABLE pn_par (d date, delay int4, origin text);
INSERT INTO pn_par SELECT date '2001-01-01' + (i % 365), i % 100, 'o' || (i % 50)
  FROM generate_series(1, 400000) i;
ANALYZE pn_par;
SET gpudb.gpu_setup_cost = 0;
SET gpudb.gpu_tuple_cost = 0;
SET gpudb.gpu_transfer_cost = 0;
SET gpudb.debug_unsupported = on;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT origin, date_trunc('month', d) AS m, count(*) FROM pn_par
  WHERE d BETWEEN '2001-03-01' AND '2001-04-01' GROUP BY 1, 2;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT origin, date_trunc('month', d) AS m, count(*) FROM pn_par
  WHERE d BETWEEN '2001-03-01' AND '2001-04-01' GROUP BY 1, 2;
RESET max_parallel_workers_per_gather;
RESET gpudb.debug_unsupported;
RESET gpudb.gpu_setup_cost;
RESET gpudb.gpu_tuple_cost;
RESET gpudb.gpu_transfer_cost;
DROP TABLE pn_par;

DROP VIEW pn_sb;
DROP TABLE pn, pn_2k, pn_1k, pn_ovf;
DROP FUNCTION gpu_diff(text, bool), gpu_diff_rows(text, bool), pn_leak(text);
DROP FUNCTION gpu_explain(text), gpu_explain_format(text, text), gpu_plan_nodes(text);
DROP ROLE regress_gpudb_rls;
