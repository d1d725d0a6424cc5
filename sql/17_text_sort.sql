-- 17_text_sort: text ORDER BY keys on the device in the C collation
-- (text_rank.c).  A text sort key whose collation is C or POSIX sorts by a
-- hidden rank column: each string's position in byte order among the
-- query's dictionary, recomputed before the final re-sort of several
-- batches' (or parallel workers') partial results.  Other collations keep
-- PostgreSQL's plan.  Every query runs with gpudb.enabled on and off and
-- the rows are compared in order (ordered queries) or with EXCEPT ALL both
-- ways; EXPLAIN (COSTS OFF) is pinned so that GpudbSort is really under test.
\i sql/include/plan_node_settings.sql

-- t and v in the C collation: '' and NULL, prefixes ('a' < 'ab' < 'abc'),
-- bytes above 0x7F (UTF-8 'é', 'ż' sort after every ASCII letter), upper
-- case before lower ('B' < 'a'), digits ('10' < '9'), spaces; most strings
-- carry a suffix that changes every 700 rows, so that later batches bring
-- strings that sort between earlier ones (their ranks shift).  d has the
-- database's default collation.
CREATE TABLE ts (id int8 PRIMARY KEY, g int4, t text COLLATE "C",
                 v varchar(12) COLLATE "C", d text, n int4);
INSERT INTO ts
SELECT i, i % 7,
       CASE WHEN i % 19 = 0 THEN NULL
            ELSE (ARRAY['', 'a', 'ab', 'abc', 'B', 'b', 'Z', 'é', 'ż', 'e',
                        'ez', '0', '9', '10', ' ', ' a', 'a ', 'abd', 'ab c',
                        'É', 'aé', 'zz'])[1 + i % 22] ||
                 CASE WHEN i % 3 = 0 THEN (i / 700)::text ELSE '' END END,
       CASE WHEN i % 23 = 0 THEN NULL
            ELSE (ARRAY['x', 'xy', '', 'Y', 'ä', '1', ' '])[1 + i % 7] ||
                 CASE WHEN i % 2 = 0 THEN (i % 31)::text ELSE '' END END,
       'd' || (i % 50), i % 5
FROM generate_series(1, 6000) i;
ANALYZE ts;

-- ts_diff(query, ordered): gpu_diff (sql/include/differential.sql),
-- ordered by default
\i sql/include/differential.sql
\i sql/include/explain_plan.sql
CREATE FUNCTION ts_diff(q text, ordered bool DEFAULT true,
                        OUT node text, OUT nrows int, OUT on_minus_off int,
                        OUT off_minus_on int, OUT error text)
LANGUAGE sql AS $$ SELECT * FROM gpu_diff(q, ordered) $$;

-- the plan: GpudbSort with the text key, the top-k limit on the device
EXPLAIN (COSTS OFF) SELECT id, t FROM ts ORDER BY t, id;
EXPLAIN (COSTS OFF) SELECT id, t, v FROM ts WHERE n < 3 ORDER BY t DESC NULLS LAST, v, id LIMIT 10;
EXPLAIN (COSTS OFF) SELECT id FROM ts ORDER BY v NULLS FIRST, id LIMIT 5;

-- one batch: every direction and NULL order, with and without LIMIT
SELECT * FROM ts_diff('SELECT id, t FROM ts ORDER BY t, id');
SELECT * FROM ts_diff('SELECT id, t FROM ts ORDER BY t DESC, id');
SELECT * FROM ts_diff('SELECT id, t FROM ts ORDER BY t NULLS FIRST, id');
SELECT * FROM ts_diff('SELECT id, t FROM ts ORDER BY t DESC NULLS LAST, id DESC');
SELECT * FROM ts_diff('SELECT t, id FROM ts ORDER BY t, id LIMIT 40');
SELECT * FROM ts_diff('SELECT t, id FROM ts ORDER BY t DESC, id LIMIT 40');
SELECT * FROM ts_diff('SELECT g, t, id FROM ts ORDER BY g, t DESC, id LIMIT 100');
SELECT * FROM ts_diff('SELECT g, t, id FROM ts ORDER BY g, t DESC, id');
SELECT * FROM ts_diff('SELECT v, t, id FROM ts ORDER BY v DESC NULLS LAST, t NULLS FIRST, id LIMIT 60');
SELECT * FROM ts_diff('SELECT id, v FROM ts WHERE n = 2 AND g > 1 ORDER BY v, id LIMIT 25');
SELECT * FROM ts_diff('SELECT id FROM ts WHERE t IN (''a'', ''ab'', ''abc'', ''ż'', '''') OR n = 2 ORDER BY t, id');
SELECT * FROM ts_diff('SELECT id, t FROM ts WHERE v = ''xy'' ORDER BY t DESC NULLS LAST, id');
-- the sort key alone in the result, and ties broken by columns outside the
-- keys: compare only the key columns, as sets and in order
SELECT * FROM ts_diff('SELECT t FROM ts ORDER BY t LIMIT 300');
SELECT * FROM ts_diff('SELECT t FROM ts ORDER BY t DESC NULLS LAST LIMIT 300');
SELECT * FROM ts_diff('SELECT t, v FROM (SELECT t, v, id FROM ts ORDER BY t, v LIMIT 500) x', false);
-- the first rows in order, as psql shows them
SELECT id, t IS NULL AS null_t, t FROM ts ORDER BY t NULLS FIRST, id LIMIT 6 OFFSET 312;
SELECT id, t FROM ts WHERE t IS NOT NULL ORDER BY t DESC, id LIMIT 6;
SELECT DISTINCT t FROM ts WHERE id <= 22 ORDER BY t;

-- several batches: the partial results' ranks come from different
-- dictionary states and are recomputed before the final re-sort
SET gpudb.batch_rows = 1024;
SELECT * FROM gpu_explain($$SELECT id, t FROM ts ORDER BY t DESC, id LIMIT 7$$);
SELECT id, t FROM ts ORDER BY t DESC, id LIMIT 7;
SELECT * FROM ts_diff('SELECT id, t FROM ts ORDER BY t, id');
SELECT * FROM ts_diff('SELECT id, t FROM ts ORDER BY t DESC NULLS LAST, id');
SELECT * FROM ts_diff('SELECT t, id FROM ts ORDER BY t, id LIMIT 50');
SELECT * FROM ts_diff('SELECT t, id FROM ts ORDER BY t DESC, id LIMIT 50');
SELECT * FROM ts_diff('SELECT g, t, v, id FROM ts ORDER BY g, t DESC, v NULLS FIRST, id LIMIT 200');
SELECT * FROM ts_diff('SELECT v, id FROM ts WHERE n <> 1 ORDER BY v DESC, id LIMIT 77');
SELECT * FROM ts_diff('SELECT t FROM ts ORDER BY t LIMIT 999');
RESET gpudb.batch_rows;

-- gpu_sort with text keys in the C collation
SELECT * FROM ts_diff($q$SELECT * FROM gpu_sort('ts', 'id, t', 't DESC, id', 30) AS x(id int8, t text)$q$);
SELECT (SELECT array_agg(x::text) FROM gpu_sort('ts', 'id, t, v', 't NULLS FIRST, v DESC, id', 25, 'n < 4') AS x(id int8, t text, v varchar))
     = (SELECT array_agg(y::text) FROM (SELECT id, t, v FROM ts WHERE n < 4 ORDER BY t NULLS FIRST, v DESC, id LIMIT 25) y) AS gpu_sort_same;
SET gpudb.batch_rows = 1024;
SELECT (SELECT array_agg(x::text) FROM gpu_sort('ts', 'id, v', 'v, id') AS x(id int8, v varchar))
     = (SELECT array_agg(y::text) FROM (SELECT id, v FROM ts ORDER BY v, id) y) AS gpu_sort_batches_same;
RESET gpudb.batch_rows;
-- a column of another collation: refused (0A000, use plain SQL); d has the
-- database's default collation, which is C in some setups
DO $$
DECLARE
  is_c bool := (SELECT datcollate IN ('C', 'POSIX') FROM pg_database
                WHERE datname = current_database());
  ok bool;
BEGIN
  BEGIN
    PERFORM * FROM gpu_sort('ts', 'id', 'd, id', 3) AS x(id int8);
    ok := is_c;
  EXCEPTION WHEN feature_not_supported THEN
    ok := NOT is_c AND SQLERRM LIKE 'gpu_sort cannot order by column "d" in collation%';
  END;
  RAISE NOTICE 'gpu_sort over the default collation as expected: %', ok;
END $$;
SELECT * FROM gpu_sort('ts', 'id', 'd COLLATE "C"', 3) AS x(id int8);

-- other collations keep PostgreSQL's plan, and say why (the collation's
-- name is masked: the first libc or ICU collation there is that is not C)
CREATE FUNCTION ts_plan(q text, with_analyze bool DEFAULT false) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF' ||
      CASE WHEN with_analyze THEN ', ANALYZE, BUFFERS OFF, TIMING OFF, SUMMARY OFF' ELSE '' END || ') ' || q LOOP
    l := regexp_replace(l, '(rows=[0-9]+)\.00 ', '\1 ', 'g');
    l := regexp_replace(l, 'COLLATE "(?!C")[^"]*"', 'COLLATE "<not C>"');
    l := regexp_replace(l, 'Workers Launched: [1-9][0-9]*', 'Workers Launched: >0');
    l := regexp_replace(l, '(Batches|Rows In|Rows Selected): [0-9]+', '\1: N');
    RETURN NEXT l;
  END LOOP;
END $$;
DO $$
DECLARE
  c text := (SELECT collname FROM pg_collation
             WHERE collname IN ('en_US', 'en_US.utf8', 'C.utf8', 'und-x-icu', 'en-x-icu')
               AND collencoding IN (-1, pg_char_to_encoding(getdatabaseencoding()))
             ORDER BY collname LIMIT 1);
BEGIN
  EXECUTE format('CREATE TABLE ts_other AS SELECT id, t COLLATE %I AS t FROM ts', coalesce(c, 'default'));
END $$;
ANALYZE ts_other;
SELECT collname NOT IN ('C', 'POSIX') AS not_c FROM pg_collation
WHERE oid = (SELECT attcollation FROM pg_attribute WHERE attrelid = 'ts_other'::regclass AND attname = 't');
SELECT * FROM ts_plan('SELECT id, t FROM ts_other ORDER BY t, id LIMIT 3');
SELECT * FROM ts_diff('SELECT id, t FROM ts_other ORDER BY t, id LIMIT 3');
SELECT * FROM ts_diff('SELECT id, t FROM ts_other ORDER BY t DESC, id');
-- ORDER BY t COLLATE "C" over a column of another collation: not offered
SET gpudb.debug_unsupported = on;
SELECT * FROM ts_plan('SELECT id, d FROM ts ORDER BY d COLLATE "C", id LIMIT 3');
RESET gpudb.debug_unsupported;
-- and a C column ordered by another collation
SELECT * FROM ts_plan('SELECT id, t FROM ts ORDER BY t COLLATE "default", id LIMIT 3');
SELECT * FROM ts_diff('SELECT id, d FROM ts ORDER BY d COLLATE "C", id LIMIT 20');

-- parallel heap reads: each participant ranks under its own dictionary;
-- the leader recomputes the ranks after rewriting the workers' codes
CREATE TABLE tsp (id int8, t text COLLATE "C", v varchar(12) COLLATE "C");
INSERT INTO tsp
SELECT i, CASE WHEN i % 29 = 0 THEN NULL
               ELSE (ARRAY['', 'q', 'qa', 'Q', 'é', '7', ' x'])[1 + i % 7] || (i % 5003)::text END,
       (ARRAY['m', 'mm', 'M', 'ä'])[1 + i % 4] || (i / 1000)::text
FROM generate_series(1, 80000) i;
ANALYZE tsp;
SET gpudb.use_cache = off;
SET gpudb.parallel_workers = 3;
SET gpudb.min_parallel_table_size = '1MB';
SET gpudb.batch_rows = 8192;
SELECT pg_relation_size('tsp') >= 1024 * 1024 AS above_threshold;
SELECT * FROM ts_plan('SELECT id, t FROM tsp ORDER BY t, id LIMIT 5', true);
SELECT * FROM ts_diff('SELECT id, t FROM tsp ORDER BY t, id LIMIT 100');
SELECT * FROM ts_diff('SELECT id, t, v FROM tsp ORDER BY v DESC, t NULLS FIRST, id LIMIT 300');
SELECT * FROM ts_diff('SELECT t, id FROM tsp WHERE id % 11 = 0 ORDER BY t DESC, id');
SELECT * FROM ts_diff('SELECT v FROM tsp ORDER BY v LIMIT 4000');
RESET gpudb.batch_rows;
RESET gpudb.min_parallel_table_size;
RESET gpudb.parallel_workers;
RESET gpudb.use_cache;

-- a cached table: a text sort key reads the heap, and EXPLAIN says why;
-- other sort keys still use the cache (17_text_sort_1.out: gpudb is not
-- preloaded, so there is no GPU server and no cache)
SELECT gpu_cache_load('ts') > 0 AS loaded;
SELECT * FROM gpu_explain($$SELECT id, t FROM ts ORDER BY t, id LIMIT 3$$);
SELECT * FROM gpu_explain($$SELECT id, t FROM ts ORDER BY n, id LIMIT 3$$);
SELECT * FROM ts_diff('SELECT id, t FROM ts ORDER BY t, id LIMIT 100');
SELECT * FROM ts_diff('SELECT id, v, t FROM ts ORDER BY v DESC, t, id LIMIT 50');
SELECT * FROM ts_diff($q$SELECT * FROM gpu_sort('ts', 'id, t', 't, id', 30) AS x(id int8, t text)$q$);
SELECT gpu_cache_drop('ts');

DROP FUNCTION ts_diff(text, bool), gpu_diff(text, bool), gpu_diff_rows(text, bool);
DROP FUNCTION gpu_explain(text), gpu_explain_format(text, text), gpu_plan_nodes(text);
