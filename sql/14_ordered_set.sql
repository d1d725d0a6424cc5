-- 14_ordered_set: count(DISTINCT x), percentile_cont(f), percentile_disc(f)
-- and mode() WITHIN GROUP (ORDER BY x) in GpudbAgg and gpu_groupby(), computed
-- from a histogram of (group keys, x) that the device's ordered group-by
-- builds.  Every query runs with gpudb.enabled on and off; EXCEPT ALL both
-- ways must be empty, and EXPLAIN (COSTS OFF) is pinned so that the GpudbAgg
-- node is really under test.
\i sql/include/plan_node_settings.sql
\i sql/include/explain_plan.sql

-- NULL group keys and inputs, ties, duplicates, -0/+0, NaN, infinities
CREATE TABLE os (id int8, g int4, x int4, b int8, f float8, r real, s text,
                 t text, d date, k bool, n numeric, h int2, ts timestamp);
INSERT INTO os
SELECT i,
       CASE WHEN i % 31 = 0 THEN NULL ELSE i % 10 END,
       CASE WHEN i % 9 = 0 THEN NULL
            ELSE ((i * 37) % 23) * (1 + (i % 10) % 3) - i / 600 END,
       (i * 2654435761) % 100000000000 - 50000000000,
       CASE WHEN i % 13 = 0 THEN NULL WHEN i % 97 = 0 THEN 'NaN'
            WHEN i % 89 = 0 THEN 'Infinity' WHEN i % 83 = 0 THEN '-Infinity'
            WHEN i % 41 = 0 THEN '-0' WHEN i % 43 = 0 THEN '0'
            ELSE ((i * 7) % 200) * 0.25 - 20 END,
       ((i % 40) * 0.3)::real,
       CASE WHEN i % 17 = 0 THEN NULL ELSE 'w' || ((i * 13) % 7) END,
       CASE WHEN i % 19 = 0 THEN NULL ELSE 'k' || (i % 4) END,
       date '2024-01-01' + (i * 11) % 50,
       CASE WHEN i % 23 = 0 THEN NULL ELSE i % 3 = 0 END,
       i / 7.0, ((i * 7) % 301 - 150)::int2,
       timestamp '2024-01-01' + ((i * 5) % 77) * interval '1 hour'
FROM generate_series(1, 6000) i;
ANALYZE os;

-- os_diff(query): the Gpudb nodes of its plan with gpudb on, its rows, and the
-- rows of (on EXCEPT ALL off) and (off EXCEPT ALL on); errors are part of
-- the answer (the same SQLSTATE and message both ways).  Result columns
-- need distinct names.
CREATE FUNCTION os_diff(q text, OUT node text, OUT nrows bigint,
                        OUT on_minus_off bigint, OUT off_minus_on bigint,
                        OUT error text)
LANGUAGE plpgsql SET client_min_messages = warning AS $$
DECLARE
  l text;
  e_on text;
  e_off text;
BEGIN
  node := '';
  PERFORM set_config('gpudb.enabled', 'on', true);
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l ~ 'Custom Scan \(Gpudb' THEN
      node := node || CASE WHEN node = '' THEN '' ELSE ',' END ||
              substring(l from 'Custom Scan \((Gpudb[A-Za-z]+)\)');
    END IF;
  END LOOP;
  BEGIN
    EXECUTE 'CREATE TEMP TABLE os_on AS ' || q;
  EXCEPTION WHEN OTHERS THEN
    e_on := SQLSTATE || ': ' || SQLERRM;
  END;
  PERFORM set_config('gpudb.enabled', 'off', true);
  BEGIN
    EXECUTE 'CREATE TEMP TABLE os_off AS ' || q;
  EXCEPTION WHEN OTHERS THEN
    e_off := SQLSTATE || ': ' || SQLERRM;
  END;
  PERFORM set_config('gpudb.enabled', 'on', true);
  IF e_on IS NOT NULL OR e_off IS NOT NULL THEN
    error := CASE WHEN e_on IS NOT DISTINCT FROM e_off THEN 'same: ' || e_on
                  ELSE 'DIFFERENT: on=' || coalesce(e_on, 'ok') || ' off=' || coalesce(e_off, 'ok') END;
    DROP TABLE IF EXISTS os_on;
    DROP TABLE IF EXISTS os_off;
    RETURN;
  END IF;
  nrows := (SELECT count(*) FROM os_off);
  on_minus_off := (SELECT count(*) FROM (TABLE os_on EXCEPT ALL TABLE os_off) x);
  off_minus_on := (SELECT count(*) FROM (TABLE os_off EXCEPT ALL TABLE os_on) x);
  DROP TABLE os_on;
  DROP TABLE os_off;
END $$;

-- a negative control: the harness sees a difference when there is one
SELECT on_minus_off > 0 AND off_minus_on > 0 AS harness_detects_difference
FROM os_diff('SELECT g, count(DISTINCT x) + CASE WHEN current_setting(''gpudb.enabled'') = ''on'' THEN 1 ELSE 0 END AS c FROM os GROUP BY g');

-- ---- count(DISTINCT x) ----
EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT x) FROM os GROUP BY g;
SELECT g, count(DISTINCT x) AS cx, count(DISTINCT f) AS cf, count(DISTINCT s) AS cs
FROM os GROUP BY g ORDER BY g;
SELECT * FROM os_diff('SELECT g, count(DISTINCT x) AS cx, count(DISTINCT b) AS cb, count(DISTINCT f) AS cf, count(DISTINCT r) AS cr FROM os GROUP BY g');
SELECT * FROM os_diff('SELECT g, count(DISTINCT s) AS cs, count(DISTINCT d) AS cd, count(DISTINCT k) AS ck, count(DISTINCT t) AS ct FROM os GROUP BY g');
-- text keys, two keys, no keys
SELECT * FROM os_diff('SELECT t, count(DISTINCT x) AS cx, count(DISTINCT s) AS cs FROM os GROUP BY t');
SELECT * FROM os_diff('SELECT g, t, count(DISTINCT x) AS cx, count(DISTINCT f) AS cf FROM os GROUP BY g, t');
SELECT * FROM os_diff('SELECT count(DISTINCT x) AS cx, count(DISTINCT s) AS cs, count(DISTINCT f) AS cf FROM os');
-- count(DISTINCT) alone counts the histogram's rows of a group: a float
-- group key's -0 and +0 are one group, NaN another, NULL keys a third
SELECT * FROM os_diff('SELECT f, count(DISTINCT x) AS cx, count(DISTINCT s) AS cs FROM os GROUP BY f');
SELECT f, count(DISTINCT x) AS cx, count(DISTINCT s) AS cs FROM os
WHERE f = 0 OR f = 'NaN' OR f IS NULL GROUP BY f ORDER BY f;
-- -0 = +0 and NaN = NaN: one value each
SELECT * FROM os_diff('SELECT count(DISTINCT f) AS cf FROM os WHERE f = 0 OR f = ''NaN'' OR f = ''Infinity''');
SELECT count(DISTINCT f) AS cf FROM os WHERE f = 0 OR f = 'NaN' OR f = 'Infinity';

-- ---- percentile_cont ----
EXPLAIN (COSTS OFF)
  SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM os GROUP BY g;
SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS p50,
       percentile_cont(0.25) WITHIN GROUP (ORDER BY x) AS p25,
       percentile_cont(0.25) WITHIN GROUP (ORDER BY f) AS f25
FROM os GROUP BY g ORDER BY g;
SELECT * FROM os_diff('SELECT g, percentile_cont(0) WITHIN GROUP (ORDER BY x) AS p0, percentile_cont(1) WITHIN GROUP (ORDER BY x) AS p1, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS p50, percentile_cont(0.25) WITHIN GROUP (ORDER BY x) AS p25 FROM os GROUP BY g');
SELECT * FROM os_diff('SELECT g, percentile_cont(0) WITHIN GROUP (ORDER BY f) AS p0, percentile_cont(1) WITHIN GROUP (ORDER BY f) AS p1, percentile_cont(0.5) WITHIN GROUP (ORDER BY f) AS p50, percentile_cont(0.37) WITHIN GROUP (ORDER BY f) AS p37 FROM os GROUP BY g');
-- bigint (rounded to double precision), real, smallint through the cast
SELECT * FROM os_diff('SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY b) AS pb, percentile_cont(0.3) WITHIN GROUP (ORDER BY r) AS pr, percentile_cont(0.9) WITHIN GROUP (ORDER BY id) AS pid, percentile_cont(0.6) WITHIN GROUP (ORDER BY h) AS ph FROM os GROUP BY g');
SELECT * FROM os_diff('SELECT t, percentile_cont(0.5) WITHIN GROUP (ORDER BY f) AS pf FROM os WHERE f > -10 GROUP BY t');
-- one-row groups
SELECT * FROM os_diff('SELECT id, percentile_cont(0.3) WITHIN GROUP (ORDER BY f) AS pf, percentile_disc(0.7) WITHIN GROUP (ORDER BY x) AS px, mode() WITHIN GROUP (ORDER BY s) AS ms FROM os WHERE id < 500 GROUP BY id');
-- infinities and NaN between the rows interpolated
SELECT * FROM os_diff('SELECT g, percentile_cont(0.999) WITHIN GROUP (ORDER BY f) AS p999, percentile_cont(0.001) WITHIN GROUP (ORDER BY f) AS p001 FROM os GROUP BY g');

-- ---- percentile_disc ----
SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS d50,
       percentile_disc(0.25) WITHIN GROUP (ORDER BY s) AS s25,
       percentile_disc(1) WITHIN GROUP (ORDER BY d) AS d100
FROM os GROUP BY g ORDER BY g;
SELECT * FROM os_diff('SELECT g, percentile_disc(0) WITHIN GROUP (ORDER BY x) AS p0, percentile_disc(1) WITHIN GROUP (ORDER BY x) AS p1, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS p50, percentile_disc(0.25) WITHIN GROUP (ORDER BY x) AS p25 FROM os GROUP BY g');
SELECT * FROM os_diff('SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY f) AS pf, percentile_disc(0.25) WITHIN GROUP (ORDER BY s) AS ps, percentile_disc(0.75) WITHIN GROUP (ORDER BY d) AS pd, percentile_disc(0.5) WITHIN GROUP (ORDER BY k) AS pk, percentile_disc(0.5) WITHIN GROUP (ORDER BY b) AS pb, percentile_disc(0.4) WITHIN GROUP (ORDER BY r) AS pr, percentile_disc(0.6) WITHIN GROUP (ORDER BY ts) AS pts, percentile_disc(0.3) WITHIN GROUP (ORDER BY h) AS ph FROM os GROUP BY g');
SELECT * FROM os_diff('SELECT t, percentile_disc(0.1) WITHIN GROUP (ORDER BY s) AS ps, percentile_disc(0.9) WITHIN GROUP (ORDER BY s) AS ps9 FROM os GROUP BY t');

-- ---- mode ----
SELECT g, mode() WITHIN GROUP (ORDER BY x) AS mx, mode() WITHIN GROUP (ORDER BY s) AS ms
FROM os GROUP BY g ORDER BY g;
SELECT * FROM os_diff('SELECT g, mode() WITHIN GROUP (ORDER BY x) AS mx, mode() WITHIN GROUP (ORDER BY s) AS ms, mode() WITHIN GROUP (ORDER BY f) AS mf, mode() WITHIN GROUP (ORDER BY k) AS mk, mode() WITHIN GROUP (ORDER BY d) AS md, mode() WITHIN GROUP (ORDER BY t) AS mt, mode() WITHIN GROUP (ORDER BY ts) AS mts, mode() WITHIN GROUP (ORDER BY h) AS mh FROM os GROUP BY g');
-- ties: the first value in sort order with the highest count
CREATE TABLE os_tie (g int4, x int4, s text);
INSERT INTO os_tie VALUES (1, 5, 'b'), (1, 3, 'c'), (1, 5, 'c'), (1, 3, 'b'), (1, 9, 'a'),
  (2, 7, 'z'), (2, NULL, NULL), (2, NULL, NULL), (2, 2, 'y'), (2, 2, 'y'), (2, 7, 'z'),
  (3, NULL, NULL), (NULL, 4, 'q'), (NULL, 4, 'p'), (NULL, 1, 'p');
ANALYZE os_tie;
EXPLAIN (COSTS OFF) SELECT g, mode() WITHIN GROUP (ORDER BY x) FROM os_tie GROUP BY g;
SELECT g, mode() WITHIN GROUP (ORDER BY x) AS mx, mode() WITHIN GROUP (ORDER BY s) AS ms,
       count(DISTINCT x) AS cx, percentile_disc(0.5) WITHIN GROUP (ORDER BY s) AS ds,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS cx50
FROM os_tie GROUP BY g ORDER BY g;
SELECT * FROM os_diff('SELECT g, mode() WITHIN GROUP (ORDER BY x) AS mx, mode() WITHIN GROUP (ORDER BY s) AS ms, count(DISTINCT x) AS cx, percentile_disc(0.5) WITHIN GROUP (ORDER BY s) AS ds, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS cx50 FROM os_tie GROUP BY g');

-- ---- empty groups: every x of group 2 filtered to NULL ----
SELECT g, count(DISTINCT x) AS cx, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS p,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS d, mode() WITHIN GROUP (ORDER BY x) AS m,
       count(*) AS n
FROM os WHERE x IS NULL OR g <> 2 GROUP BY g ORDER BY g;
SELECT * FROM os_diff('SELECT g, count(DISTINCT x) AS cx, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS p, percentile_disc(0.5) WITHIN GROUP (ORDER BY x) AS d, mode() WITHIN GROUP (ORDER BY x) AS m, count(*) AS n FROM os WHERE x IS NULL OR g <> 2 GROUP BY g');
-- no keys over no rows: one row, 0 and NULLs
SELECT * FROM os_diff('SELECT count(DISTINCT x) AS cx, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS p, mode() WITHIN GROUP (ORDER BY s) AS m FROM os WHERE x > 1000');
SELECT count(DISTINCT x) AS cx, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS p,
       mode() WITHIN GROUP (ORDER BY s) AS m
FROM os WHERE x > 1000;
-- with keys over no rows: no rows
SET gpudb.enable_gpuscan = off;
SELECT * FROM os_diff('SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS p FROM os WHERE x > 1000 GROUP BY g');
RESET gpudb.enable_gpuscan;

-- ---- the fraction: NULL, out of range, NaN ----
SELECT * FROM os_diff('SELECT g, percentile_cont(NULL) WITHIN GROUP (ORDER BY x) AS p, percentile_disc(NULL::float8) WITHIN GROUP (ORDER BY s) AS d FROM os GROUP BY g');
SELECT * FROM os_diff('SELECT g, percentile_cont(1.5) WITHIN GROUP (ORDER BY x) AS p FROM os GROUP BY g');
SELECT * FROM os_diff('SELECT g, percentile_disc(-0.1) WITHIN GROUP (ORDER BY x) AS p FROM os GROUP BY g');
SELECT * FROM os_diff('SELECT g, percentile_cont(''NaN'') WITHIN GROUP (ORDER BY f) AS p FROM os GROUP BY g');
-- global over no rows still raises; grouped over no rows does not
SELECT * FROM os_diff('SELECT percentile_cont(2) WITHIN GROUP (ORDER BY x) AS p FROM os WHERE x > 1000');
SET gpudb.enable_gpuscan = off;
SELECT * FROM os_diff('SELECT g, percentile_cont(2) WITHIN GROUP (ORDER BY x) AS p FROM os WHERE x > 1000 GROUP BY g');
RESET gpudb.enable_gpuscan;
SELECT g, percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM os GROUP BY g;

-- ---- with the other aggregates, HAVING, expressions, ORDER BY ----
EXPLAIN (COSTS OFF)
  SELECT g, count(*), sum(x), avg(f), min(d), variance(x), count(DISTINCT s),
         percentile_cont(0.5) WITHIN GROUP (ORDER BY f), mode() WITHIN GROUP (ORDER BY t)
  FROM os GROUP BY g HAVING count(DISTINCT x) > 10;
SELECT * FROM os_diff('SELECT g, count(*) AS n, sum(x) AS sx, avg(x) AS ax, max(d) AS md, variance(x) AS vx, count(DISTINCT s) AS cs, percentile_cont(0.5) WITHIN GROUP (ORDER BY f) AS pf, mode() WITHIN GROUP (ORDER BY t) AS mt FROM os GROUP BY g HAVING count(DISTINCT x) > 10');
SELECT * FROM os_diff('SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) - percentile_cont(0.25) WITHIN GROUP (ORDER BY x) AS iqr FROM os GROUP BY g HAVING percentile_disc(0.5) WITHIN GROUP (ORDER BY x) > 10');
SELECT * FROM os_diff('SELECT g, count(DISTINCT x) AS a, count(DISTINCT x) AS b, count(x) AS c FROM os GROUP BY g');
-- the device does not order groups by these aggregates: a Sort stays above
SET gpudb.debug_unsupported = on;
EXPLAIN (COSTS OFF)
  SELECT g, count(DISTINCT x) FROM os GROUP BY g ORDER BY count(DISTINCT x) DESC, g LIMIT 3;
RESET gpudb.debug_unsupported;
SELECT * FROM os_diff('SELECT g, count(DISTINCT x) AS cx FROM os GROUP BY g ORDER BY count(DISTINCT x) DESC, g LIMIT 3');
-- ordered by a group key on the device, cut to the LIMIT
EXPLAIN (COSTS OFF)
  SELECT g, mode() WITHIN GROUP (ORDER BY x) FROM os GROUP BY g ORDER BY g DESC LIMIT 3;
SELECT * FROM os_diff('SELECT g, mode() WITHIN GROUP (ORDER BY x) AS m, percentile_cont(0.5) WITHIN GROUP (ORDER BY f) AS p FROM os GROUP BY g ORDER BY g DESC LIMIT 3');

-- ---- several batches: each histogram is combined and ordered at the end ----
SET gpudb.batch_rows = 1024;
SELECT * FROM gpu_explain($$SELECT g, count(DISTINCT x), mode() WITHIN GROUP (ORDER BY s) FROM os GROUP BY g$$);
SELECT * FROM os_diff('SELECT g, count(DISTINCT x) AS cx, mode() WITHIN GROUP (ORDER BY s) AS ms, percentile_cont(0.25) WITHIN GROUP (ORDER BY f) AS pf, percentile_disc(0.75) WITHIN GROUP (ORDER BY b) AS pb, sum(x) AS sx FROM os GROUP BY g');
SELECT * FROM os_diff('SELECT t, count(DISTINCT s) AS cs, percentile_disc(0.5) WITHIN GROUP (ORDER BY s) AS ds FROM os WHERE s <> ''w3'' GROUP BY t');
SELECT * FROM os_diff('SELECT count(DISTINCT b) AS cb, percentile_cont(0.5) WITHIN GROUP (ORDER BY b) AS pb FROM os');
RESET gpudb.batch_rows;
-- over expressions (computed columns, issue 25)
SELECT * FROM os_diff('SELECT g, mode() WITHIN GROUP (ORDER BY x + 1) AS m FROM os GROUP BY g');
SELECT * FROM os_diff('SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY d - date ''2024-01-01'') AS p FROM os GROUP BY g');

-- ---- what stays on PostgreSQL's plan ----
SET gpudb.debug_unsupported = on;
EXPLAIN (COSTS OFF) SELECT g, percentile_cont(ARRAY[0.25, 0.5]) WITHIN GROUP (ORDER BY x) FROM os GROUP BY g;
EXPLAIN (COSTS OFF) SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x DESC) FROM os GROUP BY g;
EXPLAIN (COSTS OFF) SELECT g, mode() WITHIN GROUP (ORDER BY t || 'x') FROM os GROUP BY g;
SELECT gpu_plan_nodes($$SELECT g, count(DISTINCT n) FROM os GROUP BY g$$);
SELECT gpu_plan_nodes($$SELECT g, sum(DISTINCT x) FROM os GROUP BY g$$);
EXPLAIN (COSTS OFF) SELECT g, rank(3) WITHIN GROUP (ORDER BY x) FROM os GROUP BY g;
RESET gpudb.debug_unsupported;
SELECT * FROM os_diff('SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY x DESC) AS p FROM os GROUP BY g');
-- a prepared statement's custom plan is offloaded
PREPARE os_p(float8) AS
  SELECT g, percentile_cont($1) WITHIN GROUP (ORDER BY x) AS p FROM os GROUP BY g ORDER BY g;
EXPLAIN (COSTS OFF) EXECUTE os_p(0.5);
EXECUTE os_p(0.5);
DEALLOCATE os_p;

-- ---- the cache: the histograms read it when the main request does ----
-- (without shared_preload_libraries there is no cache: everything reads the heap)
DO $$ BEGIN
  IF current_setting('shared_preload_libraries') LIKE '%gpudb%' AND
     gpu_cache_load('os') IS NULL THEN
    RAISE EXCEPTION 'gpu_cache_load failed';
  END IF;
END $$;
-- the node's EXPLAIN ANALYZE Source (expect: with preload; without it the
-- heap) and whether the heap batches read (main request and histograms)
-- are none exactly when the source is the cache
CREATE FUNCTION os_source(q text, expect text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  j json;
  src text;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO j;
  src := j -> 0 -> 'Plan' ->> 'Source';
  RETURN CASE WHEN src = CASE WHEN current_setting('shared_preload_libraries') LIKE '%gpudb%'
                              THEN expect ELSE 'heap' END AND
                   ((j -> 0 -> 'Plan' ->> 'Batches')::int = 0) = (src = 'cache')
              THEN 'as expected' ELSE 'UNEXPECTED: ' || j::text END;
END $$;
SELECT os_source('SELECT g, count(DISTINCT x), percentile_cont(0.5) WITHIN GROUP (ORDER BY f) FROM os GROUP BY g', 'cache') AS source;
SELECT * FROM os_diff('SELECT g, count(DISTINCT x) AS cx, percentile_cont(0.5) WITHIN GROUP (ORDER BY f) AS pf, percentile_disc(0.5) WITHIN GROUP (ORDER BY s) AS ds, mode() WITHIN GROUP (ORDER BY s) AS ms, mode() WITHIN GROUP (ORDER BY x) AS mx FROM os GROUP BY g');
SELECT * FROM os_diff('SELECT t, count(DISTINCT s) AS cs, mode() WITHIN GROUP (ORDER BY s) AS ms FROM os WHERE s <> ''w3'' AND t <> ''k1'' GROUP BY t');
SELECT * FROM os_diff('SELECT count(DISTINCT d) AS cd, percentile_disc(0.5) WITHIN GROUP (ORDER BY d) AS pd FROM os');
-- this transaction's own changes: every request reads the heap
BEGIN;
UPDATE os SET x = 22 WHERE id % 100 = 1;
SELECT os_source('SELECT g, count(DISTINCT x) FROM os GROUP BY g', 'heap') AS source;
SELECT * FROM os_diff('SELECT g, count(DISTINCT x) AS cx, mode() WITHIN GROUP (ORDER BY x) AS mx FROM os GROUP BY g');
ROLLBACK;
DO $$ BEGIN
  IF current_setting('shared_preload_libraries') LIKE '%gpudb%' AND
     NOT gpu_cache_drop('os') THEN
    RAISE EXCEPTION 'gpu_cache_drop failed';
  END IF;
END $$;

-- ---- gpu_groupby ----
SELECT * FROM gpu_groupby('os_tie', 'g',
  'count(DISTINCT x), percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY s), mode() WITHIN GROUP (ORDER BY s)')
  AS r(g int4, cx bigint, px float8, ds text, ms text)
ORDER BY g;
-- the same as SQL, EXCEPT ALL both ways
CREATE FUNCTION os_fn_diff(fn text, q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a bigint;
  b bigint;
  l bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', fn, q) INTO a;
  EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (%s)) x', q, fn) INTO b;
  EXECUTE format('SELECT count(*) FROM (%s) x', q) INTO l;
  RETURN format('%s rows, %s and %s differ', l, a, b);
END $$;
SELECT os_fn_diff($$SELECT * FROM gpu_groupby('os', 'g, t', 'count(DISTINCT x), count(DISTINCT s), percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_cont(0.25) WITHIN GROUP (ORDER BY f), percentile_disc(0.75) WITHIN GROUP (ORDER BY d), mode() WITHIN GROUP (ORDER BY s), count(*)') AS r(g int4, t text, cx bigint, cs bigint, px float8, pf float8, dd date, ms text, n bigint)$$,
  $$SELECT g, t, count(DISTINCT x), count(DISTINCT s), percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_cont(0.25) WITHIN GROUP (ORDER BY f), percentile_disc(0.75) WITHIN GROUP (ORDER BY d), mode() WITHIN GROUP (ORDER BY s), count(*) FROM os GROUP BY g, t$$);
SELECT os_fn_diff($$SELECT * FROM gpu_groupby('os', '', 'percentile_disc(0) WITHIN GROUP (ORDER BY b), percentile_cont(1) WITHIN GROUP (ORDER BY r), mode() WITHIN GROUP (ORDER BY k)', 'f > 0') AS r(pb int8, pr float8, mk bool)$$,
  $$SELECT percentile_disc(0) WITHIN GROUP (ORDER BY b), percentile_cont(1) WITHIN GROUP (ORDER BY r), mode() WITHIN GROUP (ORDER BY k) FROM os WHERE f > 0$$);
SELECT os_fn_diff($$SELECT * FROM gpu_groupby('os', 'k', 'percentile_cont(NULL) WITHIN GROUP (ORDER BY x), percentile_disc(''0.5'') WITHIN GROUP (ORDER BY x ASC NULLS FIRST), count(DISTINCT f)', 's = ''w1''') AS r(k bool, p float8, d int4, cf bigint)$$,
  $$SELECT k, percentile_cont(NULL) WITHIN GROUP (ORDER BY x), percentile_disc('0.5') WITHIN GROUP (ORDER BY x ASC NULLS FIRST), count(DISTINCT f) FROM os WHERE s = 'w1' GROUP BY k$$);
-- errors
CREATE FUNCTION os_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
  st text; msg text; det text; hin text;
BEGIN
  EXECUTE format('SELECT count(*) FROM (%s) x', q) INTO n;
  RETURN format('ok: %s rows', n);
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                          det = PG_EXCEPTION_DETAIL, hin = PG_EXCEPTION_HINT;
  RETURN st || ': ' || msg || coalesce(E'\n  DETAIL: ' || nullif(det, ''), '')
            || coalesce(E'\n  HINT: ' || nullif(hin, ''), '');
END $$;
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'g', 'percentile_cont(1.5) WITHIN GROUP (ORDER BY x)') AS r(g int4, p float8)$q$);
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'g', 'percentile_disc(''NaN'') WITHIN GROUP (ORDER BY x)') AS r(g int4, p int4)$q$);
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'g', 'percentile_cont(0.5) WITHIN GROUP (ORDER BY s)') AS r(g int4, p float8)$q$);
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'g', 'percentile_cont(0.5) WITHIN GROUP (ORDER BY x DESC)') AS r(g int4, p float8)$q$);
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'g', 'percentile_cont(0.5 + 0.1) WITHIN GROUP (ORDER BY x)') AS r(g int4, p float8)$q$);
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'g', 'mode(1) WITHIN GROUP (ORDER BY x)') AS r(g int4, p int4)$q$);
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'g', 'mode() WITHIN GROUP (ORDER BY n)') AS r(g int4, p numeric)$q$);
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'g', 'sum(DISTINCT x)') AS r(g int4, p bigint)$q$);
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'g', 'count(DISTINCT x + 1)') AS r(g int4, p bigint)$q$);
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'g', 'count(DISTINCT nope)') AS r(g int4, p bigint)$q$);
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'g', 'mode() WITHIN GROUP (ORDER BY s)') AS r(g int4, p varchar)$q$);
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'g', 'percentile_disc(0.5) WITHIN GROUP (ORDER BY f)') AS r(g int4, p float4)$q$);
SELECT os_try($q$SELECT * FROM gpu_groupby('os', 'id, g, x, b, f, r, s, t', 'count(DISTINCT d)') AS r(a int8, b int4, c int4, e int8, f float8, g real, h text, i text, p bigint)$q$);
DROP FUNCTION gpu_explain(text), gpu_explain_format(text, text), gpu_plan_nodes(text);
